import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { Collector } from "@/lib/collector/collector";
import type { Snapshot } from "@/lib/collector/types";
import { parseConfigText } from "@/lib/config";
import { getRuntime } from "@/lib/pipeline/runtime";
import { runFailTask, runPurge, runRecover, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { assessHealth } from "@/lib/views/health";
import { cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";

/**
 * Gapwatch reaches the sandbox's brokers and Connect only through their secured listeners (global-setup starts the
 * sandbox with `secured: true`): east over SASL_SSL with SCRAM-SHA-512, west over mutual TLS, Connect over HTTPS with
 * a client certificate. The fault checks hold through them; a wrong CA, a missing client certificate or a wrong
 * password shows the cluster or Connect unreachable with what to fix. The harness (scenarios, producers) keeps using
 * PLAINTEXT and plain http, as MM2 does.
 */
const state = readSandboxState();
if (state.secured === undefined) throw new Error("the sandbox was started without `secured: true` (tests/integration/global-setup.ts starts it so)");
const secured = state.secured;
const certs = secured.certificates;
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const topic = `tlsloss-${randomUUID().slice(0, 8)}`;
const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-it-tls-"));

// Secrets reach the config only as ${ENV} references, as in production.
const env = { ...process.env, GW_IT_SCRAM_PASSWORD: secured.scram.password, GW_IT_KEYSTORE_PASSWORD: certs.storePassword };
Object.assign(process.env, env);

const scramCluster = (alias: string, ca = certs.caFile, password = "${GW_IT_SCRAM_PASSWORD}") =>
  `  - alias: ${alias}\n    bootstrap: ${secured.clusters[alias === "west" ? "west" : "east"]!.scramSsl}\n` +
  `    tls:\n      caFile: ${ca}\n` +
  `    sasl:\n      mechanism: SCRAM-SHA-512\n      username: ${secured.scram.username}\n      password: "${password}"\n`;
const mtlsCluster = (alias: string, clientCertificate: boolean) =>
  `  - alias: ${alias}\n    bootstrap: ${secured.clusters[alias]!.mtls}\n    tls:\n      caFile: ${certs.caFile}\n` +
  (clientCertificate ? `      certFile: ${certs.clientCertFile}\n      keyFile: ${certs.clientKeyFile}\n` : "");
const httpsConnect = (clientCertificate: boolean) =>
  `connect:\n  - name: sandbox\n    url: ${secured.connect.httpsUrl}\n    timeoutMs: 10000\n    tls:\n      caFile: ${certs.caFile}\n` +
  (clientCertificate ? `      keystoreFile: ${certs.clientKeystoreFile}\n      keystorePassword: "\${GW_IT_KEYSTORE_PASSWORD}"\n` : "");

/** Writes a config file of `clusters` and `connect` YAML and returns its path. */
function writeConfig(name: string, clusters: string, connect: string): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, `clusters:\n${clusters}${connect}pollIntervalSeconds: 5\nconfigRefreshCycles: 1\nthresholds: {"stallAfterMs": 15000}\n`);
  return file;
}

const mainConfig = writeConfig("main", scramCluster("east") + mtlsCluster("west", true), httpsConnect(true));
process.env.GAPWATCH_CONFIG = mainConfig;
process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
const runtime = getRuntime();

/** A collector of its own (no store, no pipeline) for one config file; the caller stops it. */
function createCollector(file: string): Collector {
  return new Collector(parseConfigText(readFileSync(file, "utf8"), file, env), null);
}

async function produce(partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ partition, seq, run: "tls" }) })) });
  await producer.disconnect();
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs: 90_000 });
const firing = (type: string): AlertRecord[] => runtime.alerts.list({ state: "firing", type });
const caughtUp = (s: Snapshot) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 20n).length === 2;

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: 2 }]);
  for (let p = 0; p < 2; p++) await produce(p, 20);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  await waitUntilReplicating(state);
});

describe("Gapwatch over TLS only: SASL_SSL/SCRAM-SHA-512, mutual TLS and HTTPS Connect with a client certificate", () => {
  it("reads the flow through the secured listeners only, with the log ends Kafka reports", async () => {
    const text = readFileSync(mainConfig, "utf8");
    for (const plain of [east, west, state.connect.url]) expect(text).not.toContain(plain);
    const committed = (s: Snapshot) => caughtUp(s) && s.flows[0]!.partitions.filter((p) => p.topic === topic && p.committedPosition === 20n).length === 2;
    const snapshot = await cycleUntil(committed, `${topic} replicated and committed, read over TLS`);
    expect(snapshot.clusters.map((c) => [c.alias, c.reachable, c.error])).toEqual([["east", true, null], ["west", true, null]]);
    expect(snapshot.connect.map((c) => [c.url, c.reachable])).toEqual([[secured.connect.httpsUrl, true]]);
    const sourceEnds = await fetchLogEnds(east, topic);
    const partitions = snapshot.flows[0]!.partitions.filter((p) => p.topic === topic).sort((a, b) => a.partition - b.partition);
    expect(partitions.map((p) => [p.partition, p.sourceLogEnd])).toEqual([0, 1].map((p) => [p, sourceEnds.get(p)!.high]));
  });

  it("both clusters over SASL_SSL/SCRAM-SHA-512: the same log ends and lag in its first cycle", async () => {
    const collector = createCollector(writeConfig("scram", scramCluster("east") + scramCluster("west"), httpsConnect(true)));
    try {
      const snapshot = await collector.runCycle();
      expect(snapshot.clusters.map((c) => [c.alias, c.reachable, c.error])).toEqual([["east", true, null], ["west", true, null]]);
      const seen = snapshot.flows[0]!.partitions.filter((p) => p.topic === topic).map((p) => [p.partition, p.sourceLogEnd, p.targetLogEnd, p.lag]);
      expect(seen.sort()).toEqual([[0, 20n, 20n, 0n], [1, 20n, 20n, 0n]]);
    } finally {
      await collector.stop();
    }
  });

  it("purge while MM2 is paused: DATA_LOSS with the exact lost range, read over TLS", async () => {
    await cycleUntil(caughtUp, `${topic} caught up`);
    const report = await runPurge(state, { topic, partition: 0, records: 300, resume: false });
    try {
      await runtime.collector.runCycle();
      const alerts = firing("DATA_LOSS").filter((a) => a.topic === topic);
      expect(alerts.map((a) => a.partition)).toEqual([0]);
      expect(alerts[0]!.evidence).toMatchObject({ lostCount: report.lostCount, firstLostOffset: report.firstLostOffset, lastLostOffset: report.lastLostOffset });
      expect(report.lostCount).toBe("300");
    } finally {
      await runResume(state);
    }
  });

  it("fail-task: TASK_FAILED with the root cause of the trace, read from Connect over HTTPS", async () => {
    const failed = await runFailTask(state);
    try {
      await runtime.collector.runCycle();
      const alerts = firing("TASK_FAILED").filter((a) => a.evidence.connector === failed.connector);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.evidence.taskId).toBe(failed.taskId);
      expect(alerts[0]!.evidence.rootCause).toBe(failed.rootCause);
      expect(String(alerts[0]!.evidence.rootCause)).toContain("Unexpected type in Cast transformation");
    } finally {
      await runRecover(state);
    }
  });

  it("a wrong CA, a missing client certificate or a wrong password: unreachable, degraded, and the error says what to fix", async () => {
    const clusters = scramCluster("east", certs.otherCaFile) + mtlsCluster("west", false) + scramCluster("east-badpw", certs.caFile, "not-the-password");
    const collector = createCollector(writeConfig("broken", clusters, httpsConnect(false)));
    try {
      const snapshot = await collector.runCycle();
      const errorOf = (alias: string) => {
        const cluster = snapshot.clusters.find((c) => c.alias === alias)!;
        expect(cluster.reachable).toBe(false);
        return cluster.error ?? "";
      };
      expect(errorOf("east")).toMatch(/unreachable: the server's certificate is not signed by a CA Gapwatch trusts: set tls\.caFile/);
      expect(errorOf("west")).toMatch(/unreachable: the broker closed the connection after the TLS handshake: a listener requiring a client certificate \(mutual TLS\)/);
      expect(errorOf("east-badpw")).toMatch(/unreachable: the broker refused the SCRAM-SHA-512 credentials: check sasl\.username and sasl\.password/);
      expect(errorOf("east-badpw")).not.toContain("not-the-password");
      expect(snapshot.connect).toHaveLength(1);
      expect(snapshot.connect[0]!.reachable).toBe(false);
      expect(snapshot.connect[0]!.error).toMatch(/failed: the server requires a client certificate \(mutual TLS\): set tls\.certFile and tls\.keyFile, or tls\.keystoreFile/);
      const health = assessHealth(snapshot, Date.now());
      expect(health.status).toBe("degraded");
      expect(health.clusters.filter((c) => !c.reachable).map((c) => c.alias).sort()).toEqual(["east", "east-badpw", "west"]);
      expect(health.connect.map((c) => c.reachable)).toEqual([false]);
    } finally {
      await collector.stop();
    }
  });
});
