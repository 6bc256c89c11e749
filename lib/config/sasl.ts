import { z } from "zod";

/** The SASL mechanisms a cluster's `sasl.mechanism` may name. */
export const supportedSaslMechanisms = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "AWS_MSK_IAM"] as const;

const passwordSasl = z.object({
  mechanism: z.enum(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]),
  username: z.string().min(1),
  password: z.string().min(1),
}).strict();

/**
 * SASL/OAUTHBEARER with the OIDC client credentials grant. Field names follow Kafka's client settings (KIP-768, and
 * KIP-1139's sasl.oauthbearer.client.credentials.* of Kafka 4.1): see docs/authentication-oauth.md for the mapping.
 */
const oauthSasl = z.object({
  mechanism: z.literal("OAUTHBEARER"),
  tokenEndpointUrl: z.url({
    protocol: /^https?$/,
    error: "must be the http(s) URL of the OIDC token endpoint (sasl.oauthbearer.token.endpoint.url)",
  }),
  clientId: z.string().min(1, "give the OAuth client id (sasl.oauthbearer.client.credentials.client.id)"),
  clientSecret: z.string().min(1, "give the OAuth client secret, e.g. clientSecret: ${GAPWATCH_OAUTH_CLIENT_SECRET}"),
  scope: z.string().min(1).optional(),
  /** SASL extensions, e.g. Confluent Cloud's `logicalCluster` and `identityPoolId`. */
  extensions: z.record(z.string(), z.string()).superRefine((extensions, ctx) => {
    for (const name of Object.keys(extensions)) {
      // RFC 7628 §3.1: key = 1*(ALPHA); "auth" carries the token itself.
      const issue = (message: string) => ctx.addIssue({ code: "custom", path: [name], message });
      if (!/^[A-Za-z]+$/.test(name)) issue("an extension name has letters only (RFC 7628)");
      else if (name === "auth") issue("\"auth\" is reserved for the token");
    }
  }).optional(),
  headerUrlencode: z.boolean().optional(),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
  // Kafka's legal ranges of sasl.login.refresh.window.factor, .min.period.seconds and .buffer.seconds.
  refreshWindowFactor: z.number().min(0.5).max(1).optional(),
  refreshMinPeriodSeconds: z.number().int().min(0).max(900).optional(),
  refreshBufferSeconds: z.number().int().min(0).max(3600).optional(),
}).strict();

/** Amazon MSK IAM: a token signed by aws-msk-iam-sasl-signer-js with AWS credentials (default chain, profile or role). */
const mskIamSasl = z.object({
  mechanism: z.literal("AWS_MSK_IAM"),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, "must be an AWS region such as us-east-1"),
  profile: z.string().min(1).optional(),
  roleArn: z.string()
    .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, "must be an IAM role ARN such as arn:aws:iam::123456789012:role/gapwatch")
    .optional(),
  roleSessionName: z.string().min(1).optional(),
}).strict().superRefine((sasl, ctx) => {
  if (sasl.profile !== undefined && sasl.roleArn !== undefined) {
    ctx.addIssue({ code: "custom", path: ["roleArn"], message: "give either profile or roleArn, not both" });
  }
  if (sasl.roleSessionName !== undefined && sasl.roleArn === undefined) {
    ctx.addIssue({ code: "custom", path: ["roleSessionName"], message: "roleSessionName goes with roleArn" });
  }
});

/**
 * A cluster's `sasl`, by mechanism. GSSAPI (Kerberos) and any other mechanism are refused with the list of
 * supported ones: Gapwatch's Kafka client has no Kerberos.
 */
export const saslSchema = z.discriminatedUnion("mechanism", [passwordSasl, oauthSasl, mskIamSasl], {
  error: (issue) => (issue.code === "invalid_union" ? describeUnsupportedMechanism(issue.input) : undefined),
});

function describeUnsupportedMechanism(input: unknown): string {
  const mechanism = typeof input === "object" && input !== null ? (input as { mechanism?: unknown }).mechanism : undefined;
  const supported = `supported: ${supportedSaslMechanisms.join(", ")}`;
  if (mechanism === undefined) return `give the SASL mechanism (${supported})`;
  if (mechanism === "GSSAPI") return `GSSAPI (Kerberos) is not supported (${supported})`;
  return `SASL mechanism ${JSON.stringify(mechanism)} is not supported (${supported})`;
}
