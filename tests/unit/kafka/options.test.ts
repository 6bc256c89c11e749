import { describe, expect, it } from "vitest";
import { ConfigError } from "@/lib/errors";
import { parseHostPort, resolveConnection, toClientOptions } from "@/lib/kafka/options";

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  return expect.fail("expected a ConfigError");
}

describe("resolveConnection", () => {
  it("applies the defaults: client id gapwatch, 10 s timeout, no TLS", () => {
    const conn = resolveConnection({ alias: "east", bootstrap: ["127.0.0.1:9092", "kafka-2:9093"] });
    expect(conn).toEqual({
      alias: "east",
      bootstrap: ["127.0.0.1:9092", "kafka-2:9093"],
      brokers: [{ host: "127.0.0.1", port: 9092 }, { host: "kafka-2", port: 9093 }],
      clientId: "gapwatch",
      requestTimeoutMs: 10_000,
      tls: undefined,
      sasl: undefined,
    });
  });

  it("turns tls: true into default TLS options and keeps PEM material", () => {
    expect(resolveConnection({ alias: "a", bootstrap: ["h:1"], tls: true }).tls).toEqual({});
    expect(resolveConnection({ alias: "a", bootstrap: ["h:1"], tls: false }).tls).toBeUndefined();
    expect(resolveConnection({ alias: "a", bootstrap: ["h:1"], tls: { ca: "CA", rejectUnauthorized: false } }).tls).toEqual({ ca: "CA", rejectUnauthorized: false });
  });

  it("names the cluster and the field when the bootstrap list is empty or malformed", () => {
    expect(configErrorOf(() => resolveConnection({ alias: "east", bootstrap: [] })).message).toMatch(/Kafka cluster "east".*bootstrap: give at least one bootstrap server/);
    expect(configErrorOf(() => resolveConnection({ alias: "east", bootstrap: ["localhost"] })).message).toMatch(/bootstrap\.0: each bootstrap server must be host:port/);
  });

  it("rejects an unknown SASL mechanism and never echoes the password", () => {
    const err = configErrorOf(() =>
      resolveConnection({ alias: "east", bootstrap: ["h:1"], sasl: { mechanism: "GSSAPI" as "PLAIN", username: "u", password: "s3cret-value" } }),
    );
    expect(err.message).toMatch(/sasl\.mechanism/);
    expect(err.message).not.toContain("s3cret-value");
  });

  it("rejects a timeout below 100 ms and unknown keys", () => {
    expect(configErrorOf(() => resolveConnection({ alias: "east", bootstrap: ["h:1"], requestTimeoutMs: 5 })).message).toMatch(/requestTimeoutMs/);
    expect(configErrorOf(() => resolveConnection({ alias: "east", bootstrap: ["h:1"], retries: 3 } as never)).message).toMatch(/retries/);
  });
});

describe("parseHostPort", () => {
  it("parses host names, IPv4 and bracketed IPv6", () => {
    expect(parseHostPort("broker-1.example.com:9092")).toEqual({ host: "broker-1.example.com", port: 9092 });
    expect(parseHostPort("[::1]:19092")).toEqual({ host: "::1", port: 19092 });
  });

  it("rejects a port out of range", () => {
    expect(() => parseHostPort("h:70000")).toThrow(ConfigError);
    expect(() => parseHostPort("h:0")).toThrow(ConfigError);
  });
});

describe("toClientOptions", () => {
  it("turns off client retries and bounds connect and request time by requestTimeoutMs", () => {
    const context = {};
    const options = toClientOptions(resolveConnection({ alias: "east", bootstrap: ["h:1"], requestTimeoutMs: 2500 }), context);
    expect(options).toMatchObject({ clientId: "gapwatch", retries: 0, connectTimeout: 2500, requestTimeout: 2500, autocreateTopics: false });
    expect(options.context).toBe(context);
    expect(options).not.toHaveProperty("tls");
    expect(options).not.toHaveProperty("sasl");
  });

  it("turns OAUTHBEARER into a token provider with the SASL extensions, one per connection config", () => {
    const conn = resolveConnection({
      alias: "cc",
      bootstrap: ["h:1"],
      sasl: { mechanism: "OAUTHBEARER", tokenEndpointUrl: "https://idp/token", clientId: "id", clientSecret: "secret", extensions: { logicalCluster: "lkc-1" } },
    });
    const first = toClientOptions(conn, {}).sasl!;
    expect(first).toMatchObject({ mechanism: "OAUTHBEARER", oauthBearerExtensions: { logicalCluster: "lkc-1" } });
    expect(typeof first.token).toBe("function");
    // The admin and the consumer of one reader share the provider, hence one token cache.
    expect(toClientOptions(conn, {}).sasl!.token).toBe(first.token);
    expect(first).not.toHaveProperty("password");
  });

  it("passes SASL credentials through", () => {
    const sasl = { mechanism: "SCRAM-SHA-512" as const, username: "mon", password: "pw" };
    expect(toClientOptions(resolveConnection({ alias: "east", bootstrap: ["h:1"], sasl }), {}).sasl).toEqual(sasl);
  });
});
