/**
 * Sign-in attempts per client address: the first `freeFailures` wrong secrets cost nothing, then each one doubles
 * the wait before the next attempt (1 s, 2 s, 4 s … up to 15 min); a right secret clears the address. The table is
 * capped (10,000 addresses, about 1 MB): when full, the address that failed least recently is forgotten.
 */
export interface SignInLimits {
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxEntries: number;
}

export const defaultSignInLimits: SignInLimits = { freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 15 * 60_000, maxEntries: 10_000 };

interface Entry {
  failures: number;
  blockedUntil: number;
  lastFailureAt: number;
}

export class SignInLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly limits: SignInLimits = defaultSignInLimits) {}

  /** Milliseconds this address must wait before its next attempt (0: it may try now). */
  waitMs(address: string, now: number): number {
    const entry = this.entries.get(address);
    return entry ? Math.max(0, entry.blockedUntil - now) : 0;
  }

  recordFailure(address: string, now: number): void {
    const entry = this.entries.get(address) ?? { failures: 0, blockedUntil: 0, lastFailureAt: now };
    this.entries.delete(address);
    entry.failures += 1;
    entry.lastFailureAt = now;
    const over = entry.failures - this.limits.freeFailures;
    if (over > 0) entry.blockedUntil = now + Math.min(this.limits.baseDelayMs * 2 ** Math.min(over - 1, 30), this.limits.maxDelayMs);
    if (this.entries.size >= this.limits.maxEntries) this.evict();
    this.entries.set(address, entry);
  }

  recordSuccess(address: string): void {
    this.entries.delete(address);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Map order is least recently failed first (recordFailure re-inserts): the oldest goes. */
  private evict(): void {
    const oldest = this.entries.keys().next().value;
    if (oldest !== undefined) this.entries.delete(oldest);
  }
}

const holder = globalThis as typeof globalThis & { __gapwatchSignInLimiter?: SignInLimiter };

/** The server's one limiter (on globalThis: dev hot reload keeps it). */
export function getSignInLimiter(): SignInLimiter {
  holder.__gapwatchSignInLimiter ??= new SignInLimiter();
  return holder.__gapwatchSignInLimiter;
}
