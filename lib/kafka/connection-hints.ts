import { explainTlsFailure, findTlsCode, setClientCertificate } from "@/lib/tls";
import type { ResolvedConnection } from "./options";

const closedAfterHandshake = "the broker closed the connection after the TLS handshake";

/** platformatic's error code for a refused SASL handshake (SaslAuthenticate answered with an error). */
const authenticationFailed = "PLT_KFK_AUTHENTICATION";

const passwordMechanisms: ReadonlySet<string> = new Set(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]);

/**
 * What an operator should check when a cluster cannot be reached over TLS or SASL, from the error and the
 * connection's settings; null when nothing specific can be said. A broker closing the connection without a word
 * is ambiguous (mutual TLS without a certificate or with one the broker does not trust, a broker going away), so
 * that hint names the likely cause for the TLS settings in use.
 */
export function explainConnectionFailure(conn: ResolvedConnection, err: unknown): string | null {
  const sentCertificate = conn.tls?.cert !== undefined || conn.tls?.pfx !== undefined;
  const tlsHint = explainTlsFailure(findTlsCode(err), "tls", sentCertificate);
  if (tlsHint !== null) return tlsHint;
  if (hasCode(err, authenticationFailed)) {
    // Only the password mechanisms have a username and password to check; OAUTHBEARER (MSK IAM included) failures
    // already say which step failed (token endpoint, signer, broker).
    const mechanism = conn.sasl?.mechanism;
    if (mechanism === undefined || !passwordMechanisms.has(mechanism)) return null;
    return `the broker refused the ${mechanism} credentials: check sasl.username and sasl.password ` +
      `(and that the user exists for ${mechanism})`;
  }
  if (hasMessage(err, /before secure TLS connection was established/)) {
    return "the port does not speak TLS (a PLAINTEXT or SASL_PLAINTEXT listener?): remove tls or use the TLS listener's port";
  }
  // Without TLS a closed connection is most often a broker going away: no guess then.
  if (conn.tls === undefined || !hasMessage(err, /^Connection closed$/)) return null;
  return sentCertificate
    ? `${closedAfterHandshake}: it may have refused the client certificate (not signed by a CA it trusts)`
    : `${closedAfterHandshake}: a listener requiring a client certificate (mutual TLS) does that; ${setClientCertificate("tls")}`;
}

function hasCode(err: unknown, code: string): boolean {
  return someError(err, (e) => (e as { code?: unknown }).code === code);
}

function hasMessage(err: unknown, pattern: RegExp): boolean {
  return someError(err, (e) => pattern.test(e.message));
}

/** True when the error, a cause or an aggregated error (any depth up to 8) matches. */
function someError(err: unknown, match: (e: Error) => boolean, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 8) return false;
  if (match(err)) return true;
  if (err instanceof AggregateError && err.errors.some((e) => someError(e, match, depth + 1))) return true;
  return someError(err.cause, match, depth + 1);
}
