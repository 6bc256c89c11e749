import { stripUrlUserInfo } from "@/lib/logger/redact";
import type { KafkaOAuthSasl } from "../types";
import type { FetchedToken } from "./token-refresh";

/** Default of one token request's time limit (Kafka leaves sasl.login.connect/read.timeout.ms unset). */
export const defaultTokenTimeoutMs = 10_000;

/**
 * Asks an OIDC token endpoint for an access token with the client credentials grant (RFC 6749 §4.4), as Kafka's
 * ClientCredentialsJwtRetriever does: form body `grant_type=client_credentials[&scope=…]`, client id and secret in a
 * Basic authorization header (URL-encoded first with sasl.oauthbearer.header.urlencode). Every failure is an Error
 * saying which endpoint failed and how; the secret is never part of it.
 */
export async function fetchClientCredentialsToken(settings: KafkaOAuthSasl, now: () => number = Date.now): Promise<FetchedToken> {
  const endpoint = stripUrlUserInfo(settings.tokenEndpointUrl);
  const fail = (how: string): Error => new Error(redactSecret(`OAUTHBEARER token endpoint ${endpoint} ${how}`, settings.clientSecret));
  const encode = (value: string) => (settings.headerUrlencode ? encodeURIComponent(value) : value);
  const body = new URLSearchParams({ grant_type: "client_credentials" });
  if (settings.scope !== undefined) body.set("scope", settings.scope);
  const timeoutMs = settings.timeoutMs ?? defaultTokenTimeoutMs;
  let response: Response;
  try {
    response = await fetch(settings.tokenEndpointUrl, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${encode(settings.clientId)}:${encode(settings.clientSecret)}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw fail(`unreachable: ${describeFetchFailure(err, timeoutMs)}`);
  }
  const text = await response.text().catch(() => "");
  if (!response.ok) {
    const hint = response.status === 401 || response.status === 400 ? " (check clientId and clientSecret)" : "";
    throw fail(`answered HTTP ${response.status}${hint}: ${describeErrorBody(text)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail(`answered HTTP ${response.status} with a body that is not JSON: ${excerpt(text)}`);
  }
  const accessToken = (parsed as { access_token?: unknown } | null)?.access_token;
  if (typeof accessToken !== "string" || accessToken.length === 0) throw fail("answered without an access_token");
  const expiresAtMs = readExpiry(accessToken, (parsed as { expires_in?: unknown }).expires_in, now());
  if (expiresAtMs === null) throw fail("answered a token without an expiry (no JWT exp claim, no expires_in)");
  if (expiresAtMs <= now()) throw fail("answered a token that has already expired");
  return { token: accessToken, expiresAtMs };
}

/**
 * When a token expires: the JWT `exp` claim (what the broker's validator checks, as Kafka's client reads it), or
 * `expires_in` seconds from now, whichever comes first; null when neither is there.
 */
export function readExpiry(accessToken: string, expiresIn: unknown, nowMs: number): number | null {
  const candidates: number[] = [];
  const exp = readJwtClaim(accessToken, "exp");
  if (typeof exp === "number" && Number.isFinite(exp)) candidates.push(exp * 1000);
  if (typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0) candidates.push(nowMs + expiresIn * 1000);
  return candidates.length === 0 ? null : Math.min(...candidates);
}

/** A claim of a JWT's payload, or undefined when the token is not a JWT. */
function readJwtClaim(token: string, claim: string): unknown {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>)[claim];
  } catch {
    return undefined;
  }
}

function describeFetchFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** An OAuth error answer's `error` and `error_description` (RFC 6749 §5.2), else the start of the body. */
function describeErrorBody(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error !== "string") return excerpt(text) || "(empty body)";
    return typeof body.error_description === "string" ? `${body.error}: ${excerpt(body.error_description)}` : body.error;
  } catch {
    // Not JSON: show the text itself.
  }
  return excerpt(text) || "(empty body)";
}

function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}

function redactSecret(message: string, secret: string): string {
  return secret.length > 0 ? message.split(secret).join("[redacted]") : message;
}
