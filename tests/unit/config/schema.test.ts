import { describe, expect, it } from "vitest";
import { clusterSchema, configSchema, connectSchema } from "@/lib/config/schema";

/** The messages of a failed parse as `path: message` lines. */
function issuesOf(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): string[] {
  return (result.error?.issues ?? []).map((i) => `${i.path.map(String).join(".")}: ${i.message}`);
}

describe("clusterSchema", () => {
  it("accepts TLS given as a boolean", () => {
    expect(clusterSchema.parse({ alias: "east", bootstrap: "k:9093", tls: true })).toEqual({ alias: "east", bootstrap: ["k:9093"], tls: true });
  });

  it("keeps an explicit rejectUnauthorized: false in a TLS object", () => {
    expect(clusterSchema.parse({ alias: "east", bootstrap: "k:9093", tls: { rejectUnauthorized: false } }).tls).toEqual({ rejectUnauthorized: false });
  });

  it("rejects unknown keys inside the TLS object", () => {
    const result = clusterSchema.safeParse({ alias: "east", bootstrap: "k:9093", tls: { verify: false } });
    expect(result.success).toBe(false);
  });

  it("rejects a SASL mechanism Gapwatch cannot speak", () => {
    const result = clusterSchema.safeParse({ alias: "east", bootstrap: "k:9093", sasl: { mechanism: "GSSAPI", username: "u", password: "p" } });
    expect(issuesOf(result)).toEqual(["sasl.mechanism: GSSAPI (Kerberos) is not supported (supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM)"]);
  });

  it("rejects an empty SASL password", () => {
    const result = clusterSchema.safeParse({ alias: "east", bootstrap: "k:9093", sasl: { mechanism: "PLAIN", username: "u", password: "" } });
    expect(issuesOf(result)).toEqual(["sasl.password: Too small: expected string to have >=1 characters"]);
  });

  it("accepts a port of up to five digits and rejects six", () => {
    expect(clusterSchema.safeParse({ alias: "east", bootstrap: "k:65535" }).success).toBe(true);
    expect(issuesOf(clusterSchema.safeParse({ alias: "east", bootstrap: "k:123456" }))).toEqual(["bootstrap.0: each bootstrap server must be host:port"]);
  });

  it("rejects a bootstrap server containing whitespace inside the host", () => {
    expect(issuesOf(clusterSchema.safeParse({ alias: "east", bootstrap: ["my host:9092"] }))).toEqual(["bootstrap.0: each bootstrap server must be host:port"]);
  });
});

describe("connectSchema", () => {
  it("defaults the timeout to 5000 ms and keeps basic auth", () => {
    expect(connectSchema.parse({ name: "mm2", url: "https://connect:8443", auth: { username: "u", password: "p" } })).toEqual({
      name: "mm2",
      url: "https://connect:8443",
      auth: { username: "u", password: "p" },
      timeoutMs: 5000,
    });
  });

  it("rejects a timeout that is zero or not an integer", () => {
    expect(connectSchema.safeParse({ name: "mm2", url: "http://c:8083", timeoutMs: 0 }).success).toBe(false);
    expect(connectSchema.safeParse({ name: "mm2", url: "http://c:8083", timeoutMs: 2.5 }).success).toBe(false);
  });

  it("rejects an empty name", () => {
    expect(issuesOf(connectSchema.safeParse({ name: "", url: "http://c:8083" }))).toEqual(["name: Too small: expected string to have >=1 characters"]);
  });
});

describe("configSchema", () => {
  const clusters = [{ alias: "east", bootstrap: "k:9092" }];

  it("fills omitted thresholds with the detector defaults and rejects wrong types and unknown keys", () => {
    const thresholds = configSchema.parse({ clusters, thresholds: { lagRecords: 5000 } }).thresholds;
    expect(thresholds.lagRecords).toBe(5000);
    expect(thresholds.stallAfterMs).toBe(120_000);
    expect(issuesOf(configSchema.safeParse({ clusters, thresholds: { lagRecords: "high" } }))).toEqual([
      "thresholds.lagRecords: Invalid input: expected number, received string",
    ]);
    expect(issuesOf(configSchema.safeParse({ clusters, thresholds: { lagWarnRecords: 5 } }))).toEqual([
      'thresholds: Unrecognized key: "lagWarnRecords"',
    ]);
  });

  it("bounds pollIntervalSeconds to 1..3600", () => {
    expect(configSchema.parse({ clusters, pollIntervalSeconds: 3600 }).pollIntervalSeconds).toBe(3600);
    expect(configSchema.safeParse({ clusters, pollIntervalSeconds: 3601 }).success).toBe(false);
  });

  it("accepts the slack and alertmanager webhook formats and rejects others", () => {
    const ok = configSchema.parse({ clusters, notifications: { webhooks: [{ url: "https://h/1", format: "slack" }, { url: "https://h/2", format: "alertmanager" }] } });
    expect(ok.notifications.webhooks.map((w) => w.format)).toEqual(["slack", "alertmanager"]);
    expect(configSchema.safeParse({ clusters, notifications: { webhooks: [{ url: "https://h/1", format: "teams" }] } }).success).toBe(false);
  });

  it("accepts an admin secret of exactly 12 characters", () => {
    expect(configSchema.parse({ clusters, admin: { secret: "123456789012" } }).admin).toEqual({ secret: "123456789012" });
  });

  it("keeps the store path", () => {
    expect(configSchema.parse({ clusters, store: { path: "/var/lib/gapwatch.db" } }).store).toEqual({ kind: "sqlite", path: "/var/lib/gapwatch.db" });
  });
});
