import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfigFile, parseConfigText } from "@/lib/config/load";
import { ConfigError } from "@/lib/errors";
import { fixtureCaPem } from "./tls-fixtures";

const FILE = "/etc/gapwatch/gapwatch.config.yaml";

/** YAML for one cluster `east` plus whatever `extra` adds at the top level. */
function withEast(extra = ""): string {
  return `clusters:\n  - alias: east\n    bootstrap: localhost:9092\n${extra}`;
}

/** An environment holding only `vars` (NODE_ENV is required by Next's ProcessEnv type). */
function envOf(vars: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { NODE_ENV: "test", ...vars };
}

/** Runs parseConfigText and returns the ConfigError it throws (fails the test if it does not). */
function configErrorOf(text: string, env: NodeJS.ProcessEnv = envOf()): ConfigError {
  try {
    parseConfigText(text, FILE, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected parseConfigText to throw a ConfigError");
}

/** A real CA certificate: the config refuses TLS material Node cannot use. */
const pem = fixtureCaPem;

describe("parseConfigText", () => {
  it("accepts a minimal config and fills in every default", () => {
    expect(parseConfigText(withEast(), FILE, envOf())).toEqual({
      clusters: [{ alias: "east", bootstrap: ["localhost:9092"] }],
      connect: [],
      pollIntervalSeconds: 10,
      configRefreshCycles: 30,
      thresholds: {
        lagRecords: 10_000,
        flowLagRecords: 100_000,
        lagSeconds: 300,
        stallAfterMs: 120_000,
        notRunningAfterMs: 120_000,
        retentionHorizonMs: 3_600_000,
        translationReplayRecords: 10_000,
        targetTopicMissingMs: 900_000,
        catchUpWindowMs: 300_000,
        eventHoldMs: 3_600_000,
      },
      flows: {},
      store: { kind: "sqlite" },
      admin: {},
      server: { requireSignInForReads: false, responseCacheMs: 5000 },
      audit: { enabled: false, recordsPerFlowPerMinute: 200, exclude: [], ignoreHeaders: [] },
      metrics: { topicSeriesLimit: 4_000, partitionSeriesLimit: 1_000, partitionSeriesTopics: [] },
      notifications: { webhooks: [] },
    });
  });

  it("splits a comma-separated bootstrap string and trims the parts", () => {
    const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: \" k1:9092, k2:9093 ,k3:9094,\"\n", FILE, envOf());
    expect(config.clusters[0]?.bootstrap).toEqual(["k1:9092", "k2:9093", "k3:9094"]);
  });

  it("accepts bootstrap servers given as a YAML list", () => {
    const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap:\n      - k1:9092\n      - k2:9093\n", FILE, envOf());
    expect(config.clusters[0]?.bootstrap).toEqual(["k1:9092", "k2:9093"]);
  });

  it("fills defaults inside connect entries, TLS objects and webhooks", () => {
    const text = withEast(
      "connect:\n  - name: mm2\n    url: http://connect:8083\n" +
        "notifications:\n  webhooks:\n    - url: https://hooks.example.com/x\n",
    ).replace("bootstrap: localhost:9092\n", `bootstrap: localhost:9092\n    tls:\n      ca: ${JSON.stringify(pem)}\n`);
    const config = parseConfigText(text, FILE, envOf());
    expect(config.clusters[0]?.tls).toEqual({ ca: pem, rejectUnauthorized: true });
    expect(config.connect).toEqual([{ name: "mm2", url: "http://connect:8083", timeoutMs: 5000 }]);
    expect(config.notifications.webhooks).toEqual([{ url: "https://hooks.example.com/x", format: "json" }]);
  });

  it("replaces ${ENV_VAR} references with the environment's values, also inside longer strings", () => {
    const text =
      "clusters:\n  - alias: east\n    bootstrap: ${EAST_HOST}:9092\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: gapwatch\n      password: ${EAST_PASSWORD}\n" +
      "connect:\n  - name: mm2\n    url: http://${CONNECT_HOST}:8083\n";
    const config = parseConfigText(text, FILE, envOf({ EAST_HOST: "kafka-east", EAST_PASSWORD: "s3cret!", CONNECT_HOST: "connect" }));
    expect(config.clusters[0]?.bootstrap).toEqual(["kafka-east:9092"]);
    expect(config.clusters[0]?.sasl).toEqual({ mechanism: "SCRAM-SHA-512", username: "gapwatch", password: "s3cret!" });
    expect(config.connect[0]?.url).toBe("http://connect:8083");
  });

  it("names the file, the field path and the variable when a referenced environment variable is unset", () => {
    const text = withEast().replace(
      "bootstrap: localhost:9092\n",
      "bootstrap: localhost:9092\n    sasl:\n      mechanism: PLAIN\n      username: u\n      password: ${EAST_PASSWORD}\n",
    );
    const err = configErrorOf(text, envOf({ OTHER: "x" }));
    expect(err.message).toBe(
      `${FILE}: clusters[0].sasl.password: environment variable EAST_PASSWORD is not set (the value refers to \${EAST_PASSWORD}; EAST_PASSWORD_FILE may name a file holding it)`,
    );
    expect(err.code).toBe("GW_CONFIG");
  });

  it("reads a referenced value from the file NAME_FILE names (a mounted secret), and refuses both or an unreadable file", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-secret-"));
    try {
      const secret = path.join(dir, "east-password");
      writeFileSync(secret, "fr0m-a-f1le\n");
      const text = withEast().replace("bootstrap: localhost:9092\n", "bootstrap: localhost:9092\n    sasl:\n      mechanism: PLAIN\n      username: u\n      password: ${EAST_PASSWORD}\n");
      const sasl = parseConfigText(text, FILE, envOf({ EAST_PASSWORD_FILE: secret })).clusters[0]?.sasl;
      expect(sasl !== undefined && "password" in sasl ? sasl.password : null).toBe("fr0m-a-f1le");
      expect(configErrorOf(text, envOf({ EAST_PASSWORD: "x", EAST_PASSWORD_FILE: secret })).message).toBe(
        `${FILE}: clusters[0].sasl.password: both EAST_PASSWORD and EAST_PASSWORD_FILE are set (the value refers to \${EAST_PASSWORD}); set only one`,
      );
      const missing = path.join(dir, "absent");
      expect(configErrorOf(text, envOf({ EAST_PASSWORD_FILE: missing })).message).toBe(
        `${FILE}: clusters[0].sasl.password: cannot read EAST_PASSWORD_FILE=${missing} (ENOENT); mount the secret file or set EAST_PASSWORD`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("treats an environment variable set to the empty string as set", () => {
    const err = configErrorOf(withEast("admin:\n  secret: ${ADMIN_SECRET}\n"), envOf({ ADMIN_SECRET: "" }));
    expect(err.message).toBe(`${FILE}: admin.secret: the admin secret must be at least 12 characters`);
  });

  it("reports invalid YAML with the file name and the parser's position", () => {
    const err = configErrorOf("clusters:\n  - alias: east\n   bootstrap: [a\n");
    expect(err.message.startsWith(`${FILE}: not valid YAML: Sequence item without - indicator at line 3, column 1`)).toBe(true);
  });

  it("reports duplicate YAML keys as invalid YAML", () => {
    const err = configErrorOf("clusters: []\nclusters: []\n");
    expect(err.message.startsWith(`${FILE}: not valid YAML: Map keys must be unique at line 2, column 1`)).toBe(true);
  });

  it.each([
    ["a list", "- east\n- west\n"],
    ["a scalar", "hello\n"],
    ["an empty file", ""],
  ])("rejects %s at the top level", (_label, text) => {
    expect(configErrorOf(text).message).toBe(`${FILE}: the top level must be a mapping with at least a \`clusters:\` list`);
  });

  it("names the field of a value with the wrong type", () => {
    expect(configErrorOf(withEast("pollIntervalSeconds: ten\n")).message).toBe(
      `${FILE}: pollIntervalSeconds: Invalid input: expected number, received string`,
    );
  });

  it("rejects an unknown top-level key and says it is at the top level", () => {
    expect(configErrorOf(withEast("foo: 1\n")).message).toBe(`${FILE}: (top level): Unrecognized key: "foo"`);
  });

  it("rejects an unknown key inside a cluster and names the cluster's index", () => {
    expect(configErrorOf(withEast().replace("bootstrap: localhost:9092\n", "bootstrap: localhost:9092\n    bogus: 1\n")).message).toBe(
      `${FILE}: clusters[0]: Unrecognized key: "bogus"`,
    );
  });

  it("rejects an alias listed twice and points at the second one", () => {
    const text = "clusters:\n  - alias: east\n    bootstrap: a:9092\n  - alias: west\n    bootstrap: b:9092\n  - alias: east\n    bootstrap: c:9092\n";
    expect(configErrorOf(text).message).toBe(`${FILE}: clusters[2].alias: alias "east" is listed twice`);
  });

  it("rejects an alias with characters MM2 aliases cannot hold", () => {
    expect(configErrorOf("clusters:\n  - alias: \"ea st\"\n    bootstrap: a:9092\n").message).toBe(
      `${FILE}: clusters[0].alias: alias may hold letters, digits, '.', '_' and '-' only`,
    );
  });

  it.each([["ftp://connect:8083"], ["not a url"]])("rejects the Connect URL %s as not http(s)", (url) => {
    expect(configErrorOf(withEast(`connect:\n  - name: mm2\n    url: ${url}\n`)).message).toBe(
      `${FILE}: connect[0].url: must be an http(s) URL such as http://connect:8083`,
    );
  });

  it("names the list index of a bootstrap server that is not host:port", () => {
    expect(configErrorOf("clusters:\n  - alias: east\n    bootstrap: [\"a:9092\", \"b\"]\n").message).toBe(
      `${FILE}: clusters[0].bootstrap[1]: each bootstrap server must be host:port`,
    );
    expect(configErrorOf("clusters:\n  - alias: east\n    bootstrap: \"a:9092, b:x\"\n").message).toBe(
      `${FILE}: clusters[0].bootstrap[1]: each bootstrap server must be host:port`,
    );
  });

  it("rejects a bootstrap string that holds no server", () => {
    expect(configErrorOf("clusters:\n  - alias: east\n    bootstrap: \" , \"\n").message).toBe(
      `${FILE}: clusters[0].bootstrap: give at least one bootstrap server`,
    );
  });

  it("rejects an empty clusters list", () => {
    expect(configErrorOf("clusters: []\n").message).toBe(`${FILE}: clusters: list at least one Kafka cluster`);
  });

  it("rejects a missing clusters key", () => {
    expect(configErrorOf("pollIntervalSeconds: 5\n").message).toBe(
      `${FILE}: clusters: Invalid input: expected array, received undefined`,
    );
  });

  it("lists several problems separated by semicolons", () => {
    expect(configErrorOf(withEast("pollIntervalSeconds: 0\nconfigRefreshCycles: 1.5\n")).message).toBe(
      `${FILE}: pollIntervalSeconds: Too small: expected number to be >=1; configRefreshCycles: Invalid input: expected int, received number`,
    );
  });

  it("rejects a webhook URL that is not a URL", () => {
    expect(configErrorOf(withEast("notifications:\n  webhooks:\n    - url: nope\n")).message).toBe(
      `${FILE}: notifications.webhooks[0].url: Invalid URL`,
    );
  });
});

describe("loadConfigFile", () => {
  let dir: string | null = null;

  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it("reads and validates a config file from disk", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-config-"));
    const file = path.join(dir, "gapwatch.config.yaml");
    writeFileSync(file, withEast("pollIntervalSeconds: 30\n"));
    const config = loadConfigFile(file, envOf());
    expect(config.pollIntervalSeconds).toBe(30);
    expect(config.clusters.map((c) => c.alias)).toEqual(["east"]);
  });

  it("names the missing file, the errno code and GAPWATCH_CONFIG when the file cannot be read", () => {
    const file = path.join(os.tmpdir(), "gapwatch-does-not-exist", "gapwatch.config.yaml");
    expect(() => loadConfigFile(file, envOf())).toThrow(ConfigError);
    expect(() => loadConfigFile(file, envOf())).toThrow(`${file}: cannot read the config file (ENOENT); set GAPWATCH_CONFIG to its path`);
  });

  it("prefixes validation errors with the path of the file it read", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-config-"));
    const file = path.join(dir, "bad.yaml");
    writeFileSync(file, "clusters: []\n");
    expect(() => loadConfigFile(file, envOf())).toThrow(`${file}: clusters: list at least one Kafka cluster`);
  });
  it("reads tls.ca and tls.cert from PEM files named relative to the config file, and names one it cannot read", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-config-"));
    const file = path.join(dir, "gapwatch.config.yaml");
    writeFileSync(path.join(dir, "east-ca.pem"), pem + "\n");
    writeFileSync(file, withEast().replace("bootstrap: localhost:9092\n", "bootstrap: localhost:9092\n    tls:\n      ca: east-ca.pem\n      cert: certs/client.pem\n      key: certs/client.key\n"));
    expect(() => loadConfigFile(file, envOf())).toThrow(
      `${file}: clusters[0].tls.cert: cannot read the PEM file ${path.join(dir, "certs", "client.pem")} (ENOENT); give PEM text or a readable file`,
    );
    writeFileSync(file, withEast().replace("bootstrap: localhost:9092\n", "bootstrap: localhost:9092\n    tls:\n      ca: east-ca.pem\n"));
    expect(loadConfigFile(file, envOf()).clusters[0]?.tls).toEqual({ ca: pem + "\n", rejectUnauthorized: true });
  });
});

describe("connect entries given as Connect's internal topics", () => {
  const topics = "    internalTopics: { cluster: east, configs: mirrormaker2-cluster-configs, offsets: mirrormaker2-cluster-offsets, status: mirrormaker2-cluster-status }\n";

  it("accepts internal topics without a url, and both together (the topics are then the fallback)", () => {
    const internalTopics = { cluster: "east", configs: "mirrormaker2-cluster-configs", offsets: "mirrormaker2-cluster-offsets", status: "mirrormaker2-cluster-status" };
    expect(parseConfigText(withEast(`connect:\n  - name: mm2\n${topics}`), FILE, envOf()).connect).toEqual([{ name: "mm2", timeoutMs: 5000, internalTopics }]);
    const both = parseConfigText(withEast(`connect:\n  - name: mm2\n    url: http://connect:8083\n${topics}`), FILE, envOf());
    expect(both.connect).toEqual([{ name: "mm2", url: "http://connect:8083", timeoutMs: 5000, internalTopics }]);
  });

  it("asks for a url or internal topics when an entry has neither", () => {
    expect(configErrorOf(withEast("connect:\n  - name: mm2\n")).message).toBe(
      `${FILE}: connect[0].url: give url (Connect's REST API, e.g. http://connect:8083) or internalTopics (cluster, configs, offsets, status), or both`,
    );
  });

  it("names the missing or invalid field of internalTopics, and a cluster that is not configured", () => {
    expect(configErrorOf(withEast("connect:\n  - name: mm2\n    internalTopics: { cluster: east, configs: c, offsets: o }\n")).message).toBe(
      `${FILE}: connect[0].internalTopics.status: Invalid input: expected string, received undefined`,
    );
    expect(configErrorOf(withEast("connect:\n  - name: mm2\n    internalTopics: { cluster: east, configs: 'c s', offsets: o, status: s }\n")).message).toBe(
      `${FILE}: connect[0].internalTopics.configs: must be a Kafka topic name (letters, digits, '.', '_', '-')`,
    );
    expect(configErrorOf(withEast(`connect:\n  - name: mm2\n${topics.replace("cluster: east", "cluster: west")}`)).message).toBe(
      `${FILE}: connect[0].internalTopics.cluster: cluster "west" is not in clusters ("east")`,
    );
  });

  it("refuses REST basic auth without a url", () => {
    expect(configErrorOf(withEast(`connect:\n  - name: mm2\n${topics}    auth: { username: u, password: p }\n`)).message).toBe(
      `${FILE}: connect[0].auth: auth is for the REST API: give url too, or remove auth`,
    );
  });
});
