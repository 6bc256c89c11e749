import type { SASLOptions } from "@platformatic/kafka";
import { fetchClientCredentialsToken } from "./oauth/client-credentials";
import { generateMskIamToken } from "./oauth/msk-iam";
import { createRefreshingTokenProvider, defaultRefreshTiming } from "./oauth/token-refresh";
import type { KafkaSasl } from "./types";

/**
 * platformatic's SASL options for a cluster, built once per connection config so that all its clients share one
 * token cache. OAUTHBEARER and AWS_MSK_IAM both authenticate with SASL/OAUTHBEARER and a token provider that fetches
 * (or signs) a token before the cached one is due for refresh.
 */
export function toSaslOptions(cluster: string, sasl: KafkaSasl | undefined): SASLOptions | undefined {
  if (sasl === undefined) return undefined;
  switch (sasl.mechanism) {
    case "PLAIN":
    case "SCRAM-SHA-256":
    case "SCRAM-SHA-512":
      return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password };
    case "OAUTHBEARER": {
      const timing = {
        windowFactor: sasl.refreshWindowFactor ?? defaultRefreshTiming.windowFactor,
        minPeriodSeconds: sasl.refreshMinPeriodSeconds ?? defaultRefreshTiming.minPeriodSeconds,
        bufferSeconds: sasl.refreshBufferSeconds ?? defaultRefreshTiming.bufferSeconds,
      };
      const token = createRefreshingTokenProvider({ cluster, mechanism: "OAUTHBEARER" }, () => fetchClientCredentialsToken(sasl), timing);
      const extensions = sasl.extensions ? { oauthBearerExtensions: { ...sasl.extensions } } : {};
      return { mechanism: "OAUTHBEARER", token, authBytesValidator: rejectErrorChallenge, ...extensions };
    }
    case "AWS_MSK_IAM": {
      const what = { cluster, mechanism: "AWS_MSK_IAM" };
      const token = createRefreshingTokenProvider(what, () => generateMskIamToken(sasl), defaultRefreshTiming);
      return { mechanism: "OAUTHBEARER", token, authBytesValidator: rejectErrorChallenge };
    }
  }
}

/**
 * A broker that refuses an OAUTHBEARER token answers SaslAuthenticate without an error code but with a JSON error
 * challenge, `{"status":"invalid_token"}` (RFC 7628 §3.2.2, Kafka's OAuthBearerSaslServer), and expects the client to
 * end the exchange; taken as success, the connection's next request fails with ILLEGAL_SASL_STATE. This turns the
 * challenge into an authentication error that says so (the broker logs which claim failed).
 */
export const rejectErrorChallenge: NonNullable<SASLOptions["authBytesValidator"]> = (authBytes, callback) => {
  const text = authBytes.toString("utf8");
  let status: unknown;
  try {
    status = text.length > 0 ? (JSON.parse(text) as { status?: unknown }).status : undefined;
  } catch {
    status = undefined;
  }
  if (typeof status === "string") {
    callback(new Error(`the broker refused the OAUTHBEARER token (${text}); its log says which check failed`));
    return;
  }
  callback(null, authBytes);
};
