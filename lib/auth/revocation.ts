import { getLogger } from "@/lib/logger";
import type { RevokedSession, Store } from "@/lib/store";
import { sessionLifetimeMs } from "./token";

/**
 * Sessions ended by sign-out before they expire. Checked on every request from this process's memory (the proxy and
 * the pages check synchronously); kept in the store (revoked_sessions, migration 8) once attachRevocationStore has
 * run at start, so a restart — or another web instance sharing the PostgreSQL store, within refreshEveryMs — still
 * refuses a signed-out cookie. Until the store's revocations are first read, every session is refused (fail closed:
 * an unknown revocation list is not an empty one). Bounded: expired entries are pruned, and past `maxEntries` every
 * session issued so far is ended at once (that cut-off is stored too) rather than forgetting one revocation.
 * Changing admin.secret ends every session by itself: the cookie's signature key derives from it (token.ts).
 */
const maxEntries = 10_000;
const refreshEveryMs = 5000;
const cutoffKey = "sessions-revoked-before";
const log = getLogger("auth");

type RevocationStore = Pick<Store, "revokeSession" | "listRevokedSessions" | "getValue" | "setValue">;

interface Revocations {
  byId: Map<string, number>;
  issuedBefore: number;
  store: RevocationStore | null;
  /** The store's revocations have been read (always true without a store). */
  loaded: boolean;
  /** Revocations (and a cut-off) the store failed to take: written again by the next refresh. */
  unsaved: RevokedSession[];
  cutoffUnsaved: boolean;
  /** The refresh running or last run: refreshes run one after another. */
  refreshing: Promise<void>;
  /** The 5-second refresh, once a store is attached (replaced if one is attached again, as on a dev reload). */
  timer: NodeJS.Timeout | null;
}

const holder = globalThis as typeof globalThis & { __gapwatchRevocations?: Revocations };

function revocations(): Revocations {
  holder.__gapwatchRevocations ??= {
    byId: new Map(),
    issuedBefore: 0,
    store: null,
    loaded: true,
    unsaved: [],
    cutoffUnsaved: false,
    refreshing: Promise.resolve(),
    timer: null,
  };
  return holder.__gapwatchRevocations;
}

/** At start (instrumentation.ts): reads the stored revocations, then writes and reads again every 5 s. */
export async function attachRevocationStore(store: RevocationStore): Promise<void> {
  const state = revocations();
  state.store = store;
  state.loaded = false;
  await refresh(state);
  if (state.timer) clearInterval(state.timer);
  state.timer = setInterval(() => void refresh(state), refreshEveryMs).unref();
}

function refresh(state: Revocations, now = Date.now()): Promise<void> {
  state.refreshing = state.refreshing.then(() => writeAndRead(state, now));
  return state.refreshing;
}

async function writeAndRead(state: Revocations, now: number): Promise<void> {
  const store = state.store;
  if (!store) return;
  try {
    while (state.unsaved.length > 0) {
      await store.revokeSession(state.unsaved[0]!);
      state.unsaved.shift();
    }
    if (state.cutoffUnsaved) await store.setValue(cutoffKey, String(state.issuedBefore));
    state.cutoffUnsaved = false;
    const [rows, cutoff] = await Promise.all([store.listRevokedSessions(now), store.getValue(cutoffKey)]);
    for (const [id, expiry] of state.byId) if (expiry <= now) state.byId.delete(id);
    for (const r of rows) state.byId.set(r.sessionId, r.expiresAt);
    state.issuedBefore = Math.max(state.issuedBefore, Number(cutoff ?? 0) || 0);
    state.loaded = true;
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, "reading or writing revoked sessions failed; tried again in 5 s");
  }
}

/** Ends a session: refused at once by this process, and kept in the store (a failed write is retried every 5 s). */
export async function revokeSession(sessionId: string, expiresAt: number, now: number): Promise<void> {
  const state = revocations();
  for (const [id, expiry] of state.byId) if (expiry <= now) state.byId.delete(id);
  if (state.byId.size >= maxEntries) {
    state.byId.clear();
    state.issuedBefore = now + 1;
    state.cutoffUnsaved = true;
  } else {
    state.byId.set(sessionId, expiresAt);
    if (state.store) state.unsaved.push({ sessionId, expiresAt });
  }
  if (state.store) await refresh(state, now);
}

export function isSessionRevoked(sessionId: string, expiresAt: number): boolean {
  const state = revocations();
  if (!state.loaded) return true;
  return state.byId.has(sessionId) || expiresAt - sessionLifetimeMs < state.issuedBefore;
}
