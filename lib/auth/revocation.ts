import { sessionLifetimeMs } from "./token";

/**
 * Sessions ended by sign-out before they expire, kept in this process's memory (a restart forgets them: rotate
 * admin.secret to end every session for good). Bounded: expired entries are pruned, and past `maxEntries` every
 * session issued so far is ended at once rather than forgetting one revocation.
 */
const maxEntries = 10_000;

interface Revocations {
  byId: Map<string, number>;
  issuedBefore: number;
}

const holder = globalThis as typeof globalThis & { __gapwatchRevocations?: Revocations };

function revocations(): Revocations {
  holder.__gapwatchRevocations ??= { byId: new Map(), issuedBefore: 0 };
  return holder.__gapwatchRevocations;
}

export function revokeSession(sessionId: string, expiresAt: number, now: number): void {
  const state = revocations();
  for (const [id, expiry] of state.byId) if (expiry <= now) state.byId.delete(id);
  if (state.byId.size >= maxEntries) {
    state.byId.clear();
    state.issuedBefore = now + 1;
    return;
  }
  state.byId.set(sessionId, expiresAt);
}

export function isSessionRevoked(sessionId: string, expiresAt: number): boolean {
  const state = revocations();
  return state.byId.has(sessionId) || expiresAt - sessionLifetimeMs < state.issuedBefore;
}
