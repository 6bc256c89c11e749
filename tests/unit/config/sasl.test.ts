import { describe, expect, it } from "vitest";
import { clusterSchema } from "@/lib/config/schema";

/** The messages of a failed parse as `path: message` lines. */
function issuesOf(value: unknown): string[] {
  const result = clusterSchema.safeParse({ alias: "east", bootstrap: "k:9093", sasl: value });
  return (result.error?.issues ?? []).map((i) => `${i.path.map(String).join(".")}: ${i.message}`);
}

const oauth = { mechanism: "OAUTHBEARER", tokenEndpointUrl: "https://idp.example.com/oauth2/token", clientId: "gapwatch", clientSecret: "s3cret" };

describe("a cluster's sasl, by mechanism", () => {
  it("accepts OAUTHBEARER with the client credentials settings, scope, extensions and refresh timing", () => {
    const sasl = {
      ...oauth,
      scope: "kafka",
      extensions: { logicalCluster: "lkc-abc123", identityPoolId: "pool-XyZ" },
      headerUrlencode: true,
      timeoutMs: 5000,
      refreshWindowFactor: 0.9,
      refreshMinPeriodSeconds: 30,
      refreshBufferSeconds: 120,
    };
    expect(clusterSchema.parse({ alias: "cc", bootstrap: "pkc-1.aws.confluent.cloud:9092", tls: true, sasl }).sasl).toEqual(sasl);
  });

  it("accepts AWS_MSK_IAM with a region alone (default credential chain), a profile, or a role", () => {
    for (const sasl of [
      { mechanism: "AWS_MSK_IAM", region: "eu-west-1" },
      { mechanism: "AWS_MSK_IAM", region: "us-gov-west-1", profile: "monitoring" },
      { mechanism: "AWS_MSK_IAM", region: "ap-southeast-2", roleArn: "arn:aws:iam::123456789012:role/gapwatch", roleSessionName: "gapwatch" },
    ]) {
      expect(issuesOf(sasl)).toEqual([]);
    }
  });

  it("refuses GSSAPI and unknown mechanisms naming the supported ones, and asks for a missing mechanism", () => {
    const supported = "supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM";
    expect(issuesOf({ mechanism: "GSSAPI" })).toEqual([`sasl.mechanism: GSSAPI (Kerberos) is not supported (${supported})`]);
    expect(issuesOf({ mechanism: "oauthbearer", ...{ clientId: "x" } })).toEqual([`sasl.mechanism: SASL mechanism "oauthbearer" is not supported (${supported})`]);
    expect(issuesOf({ username: "u", password: "p" })).toEqual([`sasl.mechanism: give the SASL mechanism (${supported})`]);
  });

  it("names each missing or malformed OAUTHBEARER field", () => {
    expect(issuesOf({ mechanism: "OAUTHBEARER", clientId: "", clientSecret: "s" })).toEqual([
      "sasl.tokenEndpointUrl: must be the http(s) URL of the OIDC token endpoint (sasl.oauthbearer.token.endpoint.url)",
      "sasl.clientId: give the OAuth client id (sasl.oauthbearer.client.credentials.client.id)",
    ]);
    expect(issuesOf({ ...oauth, tokenEndpointUrl: "ftp://idp/token" })).toEqual([
      "sasl.tokenEndpointUrl: must be the http(s) URL of the OIDC token endpoint (sasl.oauthbearer.token.endpoint.url)",
    ]);
    expect(issuesOf({ ...oauth, refreshWindowFactor: 0.3 })).toEqual(["sasl.refreshWindowFactor: Too small: expected number to be >=0.5"]);
    expect(issuesOf({ ...oauth, extensions: { "logical-cluster": "x" } })).toEqual(["sasl.extensions.logical-cluster: an extension name has letters only (RFC 7628)"]);
    expect(issuesOf({ ...oauth, username: "u" })).toEqual(['sasl: Unrecognized key: "username"']);
  });

  it("names AWS_MSK_IAM mistakes: a region that is not one, profile and roleArn together, a session name without a role", () => {
    expect(issuesOf({ mechanism: "AWS_MSK_IAM", region: "kafka.us-east-1.amazonaws.com" })).toEqual(["sasl.region: must be an AWS region such as us-east-1"]);
    expect(issuesOf({ mechanism: "AWS_MSK_IAM", region: "us-east-1", profile: "p", roleArn: "arn:aws:iam::123456789012:role/r" })).toEqual([
      "sasl.roleArn: give either profile or roleArn, not both",
    ]);
    expect(issuesOf({ mechanism: "AWS_MSK_IAM", region: "us-east-1", roleSessionName: "s" })).toEqual(["sasl.roleSessionName: roleSessionName goes with roleArn"]);
    expect(issuesOf({ mechanism: "AWS_MSK_IAM", region: "us-east-1", roleArn: "gapwatch" })).toEqual([
      "sasl.roleArn: must be an IAM role ARN such as arn:aws:iam::123456789012:role/gapwatch",
    ]);
  });
});
