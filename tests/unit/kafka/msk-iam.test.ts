import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateMskIamToken } from "@/lib/kafka/oauth/msk-iam";
import { resolveConnection } from "@/lib/kafka/options";

/**
 * The MSK IAM token made by AWS's own signer (aws-msk-iam-sasl-signer-js) with fixed credentials from the
 * environment — the first link of AWS's default chain, so nothing is fetched. Not proven against a live MSK cluster.
 */
const accessKeyId = "AKIAIOSFODNN7EXAMPLE";
const secretAccessKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const sessionToken = "IQoJb3JpZ2luX2VjEXAMPLEsessiontoken";
const awsEnvKeys = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"];
let saved: Record<string, string | undefined> = {};

beforeEach(() => {
  saved = Object.fromEntries(awsEnvKeys.map((k) => [k, process.env[k]]));
  for (const k of awsEnvKeys) delete process.env[k];
});

afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** The presigned URL inside a token (base64url, no padding). */
function decode(token: string): URL {
  expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
  return new URL(Buffer.from(token, "base64url").toString("utf8"));
}

describe("generateMskIamToken (AWS's signer, default credential chain)", () => {
  it("is a presigned kafka-cluster:Connect URL for the region, signed with the access key, valid 15 minutes", async () => {
    process.env.AWS_ACCESS_KEY_ID = accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = secretAccessKey;
    process.env.AWS_SESSION_TOKEN = sessionToken;
    const before = Date.now();
    const { token, expiresAtMs } = await generateMskIamToken({ mechanism: "AWS_MSK_IAM", region: "eu-central-1" });
    const url = decode(token);
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe("https://kafka.eu-central-1.amazonaws.com/");
    const q = url.searchParams;
    expect(q.get("Action")).toBe("kafka-cluster:Connect");
    expect(q.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    const date = q.get("X-Amz-Date")!;
    expect(date).toMatch(/^\d{8}T\d{6}Z$/);
    expect(q.get("X-Amz-Credential")).toBe(`${accessKeyId}/${date.slice(0, 8)}/eu-central-1/kafka-cluster/aws4_request`);
    expect(q.get("X-Amz-SignedHeaders")).toBe("host");
    expect(q.get("X-Amz-Security-Token")).toBe(sessionToken);
    expect(q.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(q.get("X-Amz-Expires")).toBe("900");
    expect(q.get("User-Agent")).toMatch(/^aws-msk-iam-sasl-signer-js\//);
    // Expiry = signing time + 900 s, and the secret key is nowhere in the token.
    const signedAt = Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8), +date.slice(9, 11), +date.slice(11, 13), +date.slice(13, 15));
    expect(expiresAtMs).toBe(signedAt + 900_000);
    expect(expiresAtMs).toBeGreaterThan(before + 890_000);
    expect(url.toString()).not.toContain(secretAccessKey);
  });

  it("is the token platformatic sends as SASL/OAUTHBEARER for an AWS_MSK_IAM cluster", async () => {
    process.env.AWS_ACCESS_KEY_ID = accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = secretAccessKey;
    const sasl = resolveConnection({ alias: "msk", bootstrap: ["b-1.msk.example:9098"], tls: true, sasl: { mechanism: "AWS_MSK_IAM", region: "us-east-1" } }).sasl!;
    expect(sasl.mechanism).toBe("OAUTHBEARER");
    expect(typeof sasl.token).toBe("function");
    const token = await (sasl.token as () => Promise<string>)();
    const url = decode(token);
    expect(url.host).toBe("kafka.us-east-1.amazonaws.com");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(new RegExp(`^${accessKeyId}/\\d{8}/us-east-1/kafka-cluster/aws4_request$`));
    expect(url.searchParams.has("X-Amz-Security-Token")).toBe(false);
    // Cached: the second connection gets the same token.
    expect(await (sasl.token as () => Promise<string>)()).toBe(token);
  });

  it("signs with a named profile's keys, and says which region and source failed when the profile is missing", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-aws-"));
    const credentials = path.join(dir, "credentials");
    writeFileSync(credentials, `[monitoring]\naws_access_key_id = AKIAPROFILEEXAMPLE01\naws_secret_access_key = ${secretAccessKey}\n`);
    process.env.AWS_SHARED_CREDENTIALS_FILE = credentials;
    process.env.AWS_CONFIG_FILE = path.join(dir, "config");
    const { token } = await generateMskIamToken({ mechanism: "AWS_MSK_IAM", region: "ap-south-1", profile: "monitoring" });
    expect(decode(token).searchParams.get("X-Amz-Credential")).toMatch(/^AKIAPROFILEEXAMPLE01\/\d{8}\/ap-south-1\/kafka-cluster\/aws4_request$/);
    await expect(generateMskIamToken({ mechanism: "AWS_MSK_IAM", region: "ap-south-1", profile: "absent" })).rejects.toThrow(
      /^AWS MSK IAM token for region ap-south-1 could not be signed with AWS credentials from profile absent: /,
    );
  });
});
