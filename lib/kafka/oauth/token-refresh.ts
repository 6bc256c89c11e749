import { getLogger } from "@/lib/logger";

const log = getLogger("kafka.oauth");

/** A bearer token and when it stops being valid. */
export interface FetchedToken {
  token: string;
  expiresAtMs: number;
}

/** When a token is replaced: Kafka's sasl.login.refresh.* client settings. */
export interface RefreshTiming {
  /** sasl.login.refresh.window.factor: share of the lifetime after which a token is replaced. */
  windowFactor: number;
  /** sasl.login.refresh.min.period.seconds */
  minPeriodSeconds: number;
  /** sasl.login.refresh.buffer.seconds */
  bufferSeconds: number;
}

/** Kafka's defaults of the sasl.login.refresh.* settings (SaslConfigs.DEFAULT_LOGIN_REFRESH_*). */
export const defaultRefreshTiming: RefreshTiming = { windowFactor: 0.8, minPeriodSeconds: 60, bufferSeconds: 300 };

/**
 * When a token obtained at `obtainedAtMs` must be replaced, as Kafka's ExpiringCredentialRefreshingLogin.refreshMs
 * computes it (without its random jitter): at `windowFactor` of the lifetime, moved to keep `bufferSeconds` before
 * expiry and `minPeriodSeconds` after obtaining it — both ignored when the token lives shorter than their sum.
 */
export function computeRefreshAtMs(obtainedAtMs: number, expiresAtMs: number, timing: RefreshTiming): number {
  const lifetimeMs = expiresAtMs - obtainedAtMs;
  const proposed = obtainedAtMs + Math.floor(lifetimeMs * timing.windowFactor);
  if (obtainedAtMs + 1000 * (timing.minPeriodSeconds + timing.bufferSeconds) > expiresAtMs) return proposed;
  const latest = expiresAtMs - 1000 * timing.bufferSeconds;
  const earliest = obtainedAtMs + 1000 * timing.minPeriodSeconds;
  return Math.max(earliest, Math.min(proposed, latest));
}

/**
 * A token provider for platformatic's `sasl.token`: it is called for every new connection and every KIP-368
 * re-authentication (at 80% of the session lifetime the broker grants, when it sets connections.max.reauth.ms).
 * The token is reused until its refresh time (computeRefreshAtMs), then fetched anew; concurrent callers share one
 * request, and a failed request is not cached (the next connection tries again).
 */
export function createRefreshingTokenProvider(
  what: { cluster: string; mechanism: string },
  fetchToken: () => Promise<FetchedToken>,
  timing: RefreshTiming,
  now: () => number = Date.now,
): () => Promise<string> {
  let current: { token: string; refreshAtMs: number; expiresAtMs: number } | null = null;
  let pending: Promise<string> | null = null;
  const refresh = async (): Promise<string> => {
    const obtainedAtMs = now();
    const fetched = await fetchToken();
    const refreshAtMs = computeRefreshAtMs(obtainedAtMs, fetched.expiresAtMs, timing);
    current = { token: fetched.token, refreshAtMs, expiresAtMs: fetched.expiresAtMs };
    const seconds = (ms: number) => Math.round((ms - obtainedAtMs) / 1000);
    log.info({ ...what, expiresInSeconds: seconds(fetched.expiresAtMs), refreshInSeconds: seconds(refreshAtMs) }, "SASL token obtained");
    return fetched.token;
  };
  return () => {
    const t = now();
    if (current !== null && t < current.refreshAtMs && t < current.expiresAtMs) return Promise.resolve(current.token);
    pending ??= refresh().finally(() => {
      pending = null;
    });
    return pending;
  };
}
