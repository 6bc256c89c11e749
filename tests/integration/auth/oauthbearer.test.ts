import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { Collector } from "@/lib/collector/collector";
import type { ClusterSnapshot, Snapshot } from "@/lib/collector/types";
import { parseConfigText } from "@/lib/config/load";
import { deleteConnector } from "@/lib/connect";
import { findFreePort } from "@/lib/sandbox/free-port";
import { classpathOf } from "@/lib/sandbox/jars";
import { type SandboxCluster, startCluster } from "@/lib/sandbox/kraft-cluster";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import { connectorNames, createFlowConnectors, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { type OidcIssuer, oauthBearerListener, readIssuedTokens, startOidcIssuer } from "@/lib/sandbox/oidc-issuer";
import { sandboxDir } from "@/lib/sandbox/paths";
import { sleep, stopProcess } from "@/lib/sandbox/processes";
import { runPurge, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, deleteLeftovers, waitUntilReplicating } from "../support/runtime";

/**
 * Gapwatch reads a cluster only through a SASL/OAUTHBEARER listener that Kafka's own OAuthBearerValidatorCallbackHandler
 * guards (JWKS, audience, issuer), with tokens from the sandbox's OIDC issuer (client credentials). The shared
 * sandbox's brokers stay PLAINTEXT for the other files, so this file starts its own single-node cluster `oidc` with an
 * OAUTH listener beside PLAINTEXT (which MM2 and the fault scenarios use, as the "truth" side) and an MM2 flow
 * oidc -> west on the shared Connect worker, removed at the end.
 *
 * Tokens live 30 s and the listener's connections.max.reauth.ms is 20 s (KIP-368): the broker closes a connection that
 * does not re-authenticate in time, so reads that keep working past several token lifetimes prove the refresh.
 */
const alias = "oidc";
const flowId = `${alias}->west`;
const clientId = "gapwatch";
const clientSecret = `gw-${randomUUID()}`;
/** A client whose tokens the issuer signs with a key its JWKS does not publish. */
const forgerId = "forger";
const tokenLifetimeSeconds = 30;
const topic = `oauthloss-${randomUUID().slice(0, 8)}`;

let state: SandboxState;
let issuer: OidcIssuer | null = null;
let cluster: SandboxCluster | null = null;
let runtime: ReturnType<typeof createSandboxRuntime>;
/** A moment before Gapwatch fetched its first token: that token has expired 30 s later. */
let firstTokenBy = 0;
const names = connectorNames(alias, "west");
const endpoint = () => ({ url: state.connect.url, timeoutMs: 15_000 });
/** The sandbox state with `oidc` at its PLAINTEXT address: what MM2 and the scenarios use. */
const truthState = () => ({ ...state, clusters: { ...state.clusters, [alias]: { bootstrap: cluster!.bootstrap } } });

const oauthYaml = (secret: string, tokenUrl = issuer!.tokenUrl, id = clientId) =>
  [
    "    sasl:",
    "      mechanism: OAUTHBEARER",
    `      tokenEndpointUrl: ${tokenUrl}`,
    `      clientId: ${id}`,
    `      clientSecret: ${secret}`,
    "      scope: kafka",
  ].join("\n");

beforeAll(async () => {
  state = readSandboxState();
  const started = Date.now();
  issuer = await startOidcIssuer({
    audience: "kafka",
    lifetimeSeconds: tokenLifetimeSeconds,
    clients: { [clientId]: clientSecret, [forgerId]: clientSecret },
    unpublishedKeyClients: [forgerId],
  });
  const { listener, jvmOptions } = await oauthBearerListener(issuer, { reauthMs: 20_000 });
  cluster = await startCluster({
    alias,
    baseDir: path.join(sandboxDir, "auth"),
    classpath: classpathOf(state.jars),
    logOption: writeLogConfig(sandboxDir, state.kafkaVersion),
    extraListeners: [listener],
    extraJvmOptions: jvmOptions,
  });
  process.stderr.write(`[oauthbearer] issuer and cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  // Created before MM2 starts: a topic appearing later makes MirrorSourceConnector reconfigure its task.
  await ensureTopics(cluster.bootstrap, [{ topic, partitions: 2 }, { topic: "heartbeats", partitions: 1, configs: { "cleanup.policy": "compact" } }]);
  await produce(0, 20);
  await produce(1, 20);
  await createFlowConnectors(endpoint(), { source: { alias, bootstrap: cluster.bootstrap, replicationFactor: 1 }, target: { alias: "west", bootstrap: state.clusters.west!.bootstrap } });
  await waitForConnectorsRunning(endpoint(), Object.values(names), 120_000, [names.checkpoint]);
  // Gapwatch is given only the OAUTH listener of `oidc`.
  const viaOauth = { ...state, clusters: { ...state.clusters, [alias]: { bootstrap: cluster.listenerBootstraps.OAUTH! } } };
  runtime = createSandboxRuntime(viaOauth, 5, {}, "", { [alias]: oauthYaml(clientSecret) });
  firstTokenBy = Date.now();
  await cycleUntil((s) => copied(s).length === 2 && copied(s).every((p) => p.lag === 0n && p.targetLogEnd === 20n), `${topic} copied`);
});

afterAll(async () => {
  await runtime?.collector.stop();
  runtime?.alerts.stop();
  await runtime?.store.close();
  if (state) for (const name of Object.values(names)) await deleteConnector(endpoint(), name).catch(() => undefined);
  if (cluster) await stopProcess(cluster.process);
  if (issuer) await stopProcess(issuer.process);
  if (state) {
    // The flow's remote topics on west, so that later files see no trace of `oidc`.
    const admin = sandboxKafka(state.clusters.west!.bootstrap).admin();
    await admin.connect();
    const leftovers = (await admin.listTopics()).filter((t) => t.startsWith(`${alias}.`));
    await admin.disconnect();
    await deleteLeftovers([{ bootstrap: state.clusters.west!.bootstrap, topics: leftovers }]);
    await waitUntilReplicating(state);
  }
});

describe("a cluster read only through a SASL/OAUTHBEARER listener (OIDC client credentials, Kafka's JWT validator)", () => {
  it("is read through the OAUTH listener with a token from the issuer", async () => {
    const snapshot = await runtime.collector.runCycle();
    const oidc = clusterOf(snapshot);
    expect(oidc.bootstrap).toEqual([cluster!.listenerBootstraps.OAUTH]);
    expect([oidc.reachable, oidc.error]).toEqual([true, null]);
    // Metadata answers with the listener the request came in on: every broker connection is an OAUTH one.
    expect(oidc.brokers.map((b) => `${b.host}:${b.port}`)).toEqual([cluster!.listenerBootstraps.OAUTH]);
    expect((await readIssuedTokens(issuer!))[clientId]).toBeGreaterThanOrEqual(1);
  });

  it("purge while MM2 is paused: DATA_LOSS with the exact lost range, read through OAUTHBEARER", async () => {
    const report = await runPurge(truthState(), { source: alias, topic, partition: 0, records: 300, resume: false });
    try {
      const snapshot = await runtime.collector.runCycle();
      expect(clusterOf(snapshot).reachable).toBe(true);
      const alerts = firing("DATA_LOSS");
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.partition).toBe(0);
      expect(alerts[0]!.evidence).toMatchObject({ lostCount: report.lostCount, firstLostOffset: report.firstLostOffset, lastLostOffset: report.lastLostOffset });
      expect(report.lostCount).toBe("300");
    } finally {
      await runResume(truthState(), { source: alias });
    }
  });

  it("refreshes the token before it expires and keeps reading after the first token expired", async () => {
    // The broker refuses an expired token (clock skew 0) and closes a connection not re-authenticated within 20 s:
    // reads after the first token's expiry prove that fresh tokens were fetched and used.
    const errors: string[] = [];
    do {
      const oidc = clusterOf(await runtime.collector.runCycle());
      if (!oidc.reachable) errors.push(oidc.error ?? "unreachable");
      if (Date.now() < firstTokenBy + (tokenLifetimeSeconds + 2) * 1000) await sleep(3000);
    } while (Date.now() < firstTokenBy + (tokenLifetimeSeconds + 5) * 1000);
    expect(errors).toEqual([]);
    // Refreshed at 80% of the 30 s lifetime (Kafka's window factor): at least two tokens by now.
    expect((await readIssuedTokens(issuer!))[clientId]).toBeGreaterThanOrEqual(2);
    expect(clusterOf(await runtime.collector.runCycle()).reachable).toBe(true);
    expect(firing("DATA_LOSS").map((a) => a.evidence.lostCount)).toEqual(["300"]);
  });

  it("a wrong client secret, an unreachable token endpoint, a token the broker refuses: the cluster is unreachable, and why", async () => {
    const wrongSecret = `wrong-${randomUUID()}`;
    const closedPort = `http://127.0.0.1:${await findFreePort()}/token`;
    const results: ClusterSnapshot[] = [];
    for (const yaml of [oauthYaml(wrongSecret), oauthYaml(clientSecret, closedPort), oauthYaml(clientSecret, issuer!.tokenUrl, forgerId)]) {
      const config = parseConfigText(`clusters:\n  - alias: ${alias}\n    bootstrap: ${cluster!.listenerBootstraps.OAUTH}\n${yaml}\n`, "inline-config.yaml", {});
      const collector = new Collector(config, null);
      try {
        results.push(clusterOf(await collector.runCycle()));
      } finally {
        await collector.stop();
      }
    }
    const [denied, unreachable, forged] = results as [ClusterSnapshot, ClusterSnapshot, ClusterSnapshot];
    // Kafka's validator checks the signature against the JWKS: a well-formed token from an unknown key is refused.
    expect((await readIssuedTokens(issuer!))[forgerId]).toBeGreaterThanOrEqual(1);
    expect(forged.reachable).toBe(false);
    expect(forged.error).toContain('unreachable: the broker refused the OAUTHBEARER token ({"status":"invalid_token"')
    expect(denied.reachable).toBe(false);
    expect(denied.error).toContain(`OAUTHBEARER token endpoint ${issuer!.tokenUrl} answered HTTP 401 (check clientId and clientSecret): invalid_client`);
    expect(denied.error).not.toContain(wrongSecret);
    expect(unreachable.reachable).toBe(false);
    expect(unreachable.error).toMatch(new RegExp(`OAUTHBEARER token endpoint ${closedPort} unreachable: `));
  });
});

async function produce(partition: number, count: number): Promise<void> {
  const producer = sandboxKafka(cluster!.bootstrap, "gapwatch-it-oauth").producer();
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic, partition, seq }) })) });
  } finally {
    await producer.disconnect();
  }
}

function cycleUntil(check: (s: Snapshot) => boolean, what: string): Promise<Snapshot> {
  return cycleUntilSeen(runtime.collector, check, what, { timeoutMs: 120_000, describe: (s) => JSON.stringify(clusterOf(s)?.error) });
}

function clusterOf(snapshot: Snapshot): ClusterSnapshot {
  return snapshot.clusters.find((c) => c.alias === alias)!;
}

function copied(snapshot: Snapshot) {
  return (snapshot.flows.find((f) => f.id === flowId)?.partitions ?? []).filter((p) => p.topic === topic);
}

function firing(type: string): AlertRecord[] {
  return runtime.alerts.list({ state: "firing", type }).filter((a) => a.topic === topic);
}
