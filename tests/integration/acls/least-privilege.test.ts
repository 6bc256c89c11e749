import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getHealth } from "@/app/api/health/route";
import { GET as getMetrics } from "@/app/api/metrics/route";
import { type AclRule, type BlindSpotKind, planAcls } from "@/lib/acls/acl-rules";
import type { BlindSpot } from "@/lib/acls/blind-spots";
import { listAclCommandArgs, renderAclCommand } from "@/lib/acls/render-acls";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import { deleteConnector, putConnectorConfig } from "@/lib/connect";
import { getRuntime } from "@/lib/pipeline/runtime";
import { type AuthorizedCluster, startAuthorizedCluster } from "@/lib/sandbox/authorizer";
import { classpathOf } from "@/lib/sandbox/jars";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import {
  checkpointConnectorConfig,
  connectorNames,
  heartbeatConnectorConfig,
  sourceConnectorConfig,
  upstreamHeartbeatConnectorConfig,
  waitForConnectorsRunning,
} from "@/lib/sandbox/mm2-connectors";
import { sandboxDir } from "@/lib/sandbox/paths";
import { sleep, stopProcess } from "@/lib/sandbox/processes";
import { runFailTask, runPurge, runRecover, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { callRoute, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";

/**
 * Least privilege, proven: two clusters of their own (`aclsrc` -> `acltgt`, MM2 on the shared Connect worker) run
 * Kafka's StandardAuthorizer (lib/sandbox/authorizer.ts). Gapwatch connects to them as User:gapwatch over SASL PLAIN
 * and holds ONLY the ACLs `npm run acls` generates (lib/acls), granted and revoked with Kafka's own AclCommand. The
 * exact checks pass on them (positions, a group's committed offsets against ConsumerGroupCommand, checkpoints and
 * failover re-reads, DATA_LOSS's exact range, TASK_FAILED); then each ACL is removed in turn, a cycle runs, the blind
 * spot it causes is asserted (kind, resources, the generator's fix) in the snapshot, /api/health and
 * gapwatch_blind_spots, and the ACL is restored.
 */
const source = "aclsrc";
const target = "acltgt";
const flowId = `${source}->${target}`;
const topic = "orders";
const group = "billing";
const user = { username: "gapwatch", password: "gapwatch-acl-test-secret" };
const principal = `User:${user.username}`;

let state: SandboxState;
let aclState: SandboxState;
const clusters = new Map<string, AuthorizedCluster>();
let runtime: ReturnType<typeof getRuntime>;
const names = connectorNames(source, target);
const endpoint = () => ({ url: state.connect.url, timeoutMs: 15_000 });
const started = Date.now();

function say(what: string): void {
  process.stderr.write(`[acls] ${what} at ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 120_000) =>
  cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: () => describeLocked() });

const firing = (type: string): AlertRecord[] => runtime.alerts.list({ state: "firing", type }).filter((a) => a.flow === flowId);
const flowOf = (s: Snapshot) => s.flows.find((f) => f.id === flowId);

/** The generated ACL plan for the two locked clusters, as Gapwatch's config names them (SASL bootstrap). */
function planLocked() {
  return planAcls({ clusters: [...clusters.values()].map((c) => ({ alias: c.alias, bootstrap: [c.saslBootstrap] })) });
}

/** Kafka's AclCommand on the PLAINTEXT listener (a super user), with exactly the generator's arguments for `rule`. */
async function applyAcl(cluster: AuthorizedCluster, rule: AclRule, action: "add" | "remove"): Promise<void> {
  await runKafkaTool(state, "org.apache.kafka.tools.AclCommand", listAclCommandArgs(rule, principal, [cluster.bootstrap], action));
}

/** What Kafka lists for the principal on a cluster (AclCommand --list), one line per ACL. */
async function listAcls(cluster: AuthorizedCluster): Promise<string[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.AclCommand", ["--bootstrap-server", cluster.bootstrap, "--list", "--principal", principal]);
  return out.split("\n").filter((l) => l.includes("operation=")).map((l) => l.trim());
}

/** Runs cycles until /api/health names (or no longer names) a blind spot; returns the health body and the spots. */
async function cycleUntilHealth(check: (spots: BlindSpot[]) => boolean, what: string): Promise<{ status: string; spots: BlindSpot[] }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    await runtime.collector.runCycle();
    const { body } = await callRoute(getHealth, "/api/health", {});
    const spots = (body.blindSpots as BlindSpot[]).filter((b) => clusters.has(b.cluster));
    if (check(spots)) return { status: String(body.status), spots };
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(spots)}; ${describeLocked()}`);
    await sleep(1000);
  }
}

/** What the newest snapshot says of the locked clusters and the flow, for a timeout's message. */
function describeLocked(): string {
  const snapshot = runtime.pipeline.latest()?.snapshot;
  if (!snapshot) return "no snapshot";
  const locked = snapshot.clusters.filter((c) => clusters.has(c.alias)).map((c) => ({ alias: c.alias, reachable: c.reachable, error: c.error, topics: c.topics.map((t) => t.name), denied: c.denied }));
  const flow = flowOf(snapshot);
  const parts = flow?.partitions.map((p) => `${p.topic}/${p.partition} pos=${p.mm2Position} end=${p.sourceLogEnd} target=${p.targetLogEnd} lag=${p.lag}`);
  return JSON.stringify({ locked, flow: flow ? { offsetSyncs: flow.offsetSyncs, errors: flow.errors, parts } : null });
}

async function readMetricLines(): Promise<string[]> {
  const text = await (await getMetrics()).text();
  return text.split("\n").filter((l) => l.startsWith("gapwatch_blind_spots{") && clusters.has(/cluster="([^"]+)"/.exec(l)?.[1] ?? ""));
}

function writeConfig(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-acls-"));
  const plain = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`);
  const locked = [...clusters.values()].map(
    (c) => `  - alias: ${c.alias}\n    bootstrap: ${c.saslBootstrap}\n    sasl:\n      mechanism: PLAIN\n      username: ${user.username}\n      password: \${ACL_TEST_PASSWORD}`,
  );
  const file = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(file, `clusters:\n${[...plain, ...locked].join("\n")}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: 5\nconfigRefreshCycles: 1\n`);
  process.env.ACL_TEST_PASSWORD = user.password;
  process.env.GAPWATCH_CONFIG = file;
  process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
}

beforeAll(async () => {
  state = readSandboxState();
  const baseDir = path.join(sandboxDir, "acls");
  rmSync(baseDir, { recursive: true, force: true });
  const opts = { baseDir, classpath: classpathOf(state.jars), logOption: writeLogConfig(sandboxDir, state.kafkaVersion) };
  const pair = await Promise.all([source, target].map((alias) => startAuthorizedCluster({ alias, ...opts }, user)));
  for (const c of pair) clusters.set(c.alias, c);
  say("two clusters with StandardAuthorizer up");
  aclState = { ...state, clusters: { ...state.clusters, [source]: { bootstrap: pair[0]!.bootstrap }, [target]: { bootstrap: pair[1]!.bootstrap } } };

  // The generator's ACLs, and nothing else, for Gapwatch's principal.
  const plan = planLocked();
  for (const c of plan) await Promise.all(c.rules.map((r) => applyAcl(clusters.get(c.cluster)!, r, "add")));
  say("generated ACLs granted");

  await ensureTopics(pair[0]!.bootstrap, [{ topic, partitions: 2 }]);
  const producer = sandboxKafka(pair[0]!.bootstrap, "gapwatch-it-acls").producer();
  await producer.connect();
  for (const partition of [0, 1]) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 40 }, (_, seq) => ({ partition, value: JSON.stringify({ partition, seq }) })) });
  }
  await producer.disconnect();
  const admin = sandboxKafka(pair[0]!.bootstrap, "gapwatch-it-acls").admin();
  await admin.connect();
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: "30" }, { partition: 1, offset: "12" }] });
  await admin.disconnect();

  const flow = { source: { alias: source, bootstrap: pair[0]!.bootstrap }, target: { alias: target, bootstrap: pair[1]!.bootstrap } };
  // The shared worker's producer writes to west, its own cluster: MM2's records, checkpoints and heartbeats must go
  // to acltgt instead (as upstreamHeartbeatConnectorConfig does for its direction).
  const toTarget = { "producer.override.bootstrap.servers": pair[1]!.bootstrap };
  await putConnectorConfig(endpoint(), names.source, sourceConnectorConfig(flow, toTarget));
  await putConnectorConfig(endpoint(), names.checkpoint, { ...checkpointConnectorConfig(flow), ...toTarget });
  await putConnectorConfig(endpoint(), names.heartbeat, { ...heartbeatConnectorConfig(flow), ...toTarget });
  await putConnectorConfig(endpoint(), names.upstreamHeartbeat, upstreamHeartbeatConnectorConfig(flow));
  await waitForConnectorsRunning(endpoint(), [names.source, names.checkpoint, names.heartbeat], 120_000, [names.checkpoint]);
  say("MM2 aclsrc -> acltgt running");
  writeConfig();
  runtime = getRuntime();
});

afterAll(async () => {
  await runtime?.collector.stop();
  runtime?.alerts.stop();
  await runtime?.store.close();
  if (state) {
    for (const name of Object.values(names)) await deleteConnector(endpoint(), name).catch(() => undefined);
  }
  await Promise.all([...clusters.values()].map((c) => stopProcess(c.process)));
  // Connectors came and went on the shared Connect worker (rebalances): the next file needs east -> west copying.
  if (state) await waitUntilReplicating(state);
  say("done");
});

describe("Gapwatch with only the generated ACLs (StandardAuthorizer, SASL PLAIN)", () => {
  it("holds exactly the generated ACLs, as Kafka lists them", async () => {
    for (const c of clusters.values()) {
      const listed = await listAcls(c);
      expect(listed.map((l) => /operation=(\w+)/.exec(l)![1]).sort()).toEqual(["DESCRIBE", "DESCRIBE", "DESCRIBE_CONFIGS", "DESCRIBE_CONFIGS", "READ"]);
      expect(listed.every((l) => l.includes(`principal=${principal}`) && l.includes("permissionType=ALLOW"))).toBe(true);
    }
  });

  it("reads positions, configs, the group's committed offsets and checkpoints exactly, with no blind spot", async () => {
    const snapshot = await cycleUntil(
      (s) => {
        const parts = flowOf(s)?.partitions.filter((p) => p.topic === topic) ?? [];
        const translated = runtime.pipeline.latest()?.translations.get(flowId)?.groups.find((g) => g.group === group);
        return parts.length === 2 && parts.every((p) => p.mm2Position === 40n && p.targetLogEnd === 40n && p.lag === 0n) && (translated?.partitions.every((p) => p.checkpoint !== null) ?? false);
      },
      "orders copied, positions known and billing checkpointed",
      150_000,
    );
    const src = snapshot.clusters.find((c) => c.alias === source)!;
    expect(src.error).toBeNull();
    expect(src.denied).toBeUndefined();
    expect(src.topics.find((t) => t.name === topic)!.configs?.cleanupPolicy).toBe("delete");
    expect(src.uncleanLeaderElectionDefault).toBe(false);
    const described = await runKafkaTool(state, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", ["--bootstrap-server", clusters.get(source)!.bootstrap, "--describe", "--group", group]);
    const fromKafka = new Map(described.split("\n").map((l) => l.trim().split(/\s+/)).filter((c) => c[0] === group).map((c) => [Number(c[2]), BigInt(c[3]!)]));
    expect(fromKafka).toEqual(new Map([[0, 30n], [1, 12n]]));
    const billing = src.groups.find((g) => g.groupId === group)!;
    expect(billing.error).toBeNull();
    expect(new Map(billing.offsets.map((o) => [o.partition, o.offset]))).toEqual(fromKafka);
    const translated = runtime.pipeline.latest()!.translations.get(flowId)!.groups.find((g) => g.group === group)!;
    expect(translated.unknown).toBeNull();
    expect(translated.partitions.map((p) => [p.partition, p.committed, p.failoverReread !== null]).sort()).toEqual([[0, 30n, true], [1, 12n, true]]);
    const health = await cycleUntilHealth(() => true, "health");
    expect(health.spots).toEqual([]);
    expect(await readMetricLines()).toEqual([]);
  }, 240_000);

  it("DATA_LOSS with the exact lost range, read through the generated ACLs", async () => {
    const report = await runPurge(aclState, { source, target, topic, partition: 0, records: 50, resume: false });
    try {
      await runtime.collector.runCycle();
      const alerts = firing("DATA_LOSS");
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.evidence).toMatchObject({ lostCount: report.lostCount, firstLostOffset: report.firstLostOffset, lastLostOffset: report.lastLostOffset });
      expect(report.lostCount).toBe("50");
    } finally {
      await runResume(aclState, { source, target });
    }
  });

});

/** Each generated ACL, removed alone: the blind spot it causes (null: none while the others stand), and where. */
const removals: { cluster: string; kind: BlindSpotKind; operation: string; expected: { kind: BlindSpotKind; resources: string[]; apis: string[] } | null }[] = [
  { cluster: source, kind: "broker-configs", operation: "DescribeConfigs", expected: { kind: "broker-configs", resources: ["kafka-cluster"], apis: ["DescribeConfigs"] } },
  { cluster: source, kind: "topic-configs", operation: "DescribeConfigs", expected: { kind: "topic-configs", resources: [topic], apis: ["DescribeConfigs"] } },
  { cluster: source, kind: "group-offsets", operation: "Describe", expected: { kind: "group-offsets", resources: [group], apis: ["OffsetFetch"] } },
  // Read on topics also gives Describe (Kafka implies it): without it the topics vanish from Metadata, and the probe of
  // MM2's internal topics names them.
  { cluster: source, kind: "topic-records", operation: "Read", expected: { kind: "topic-metadata", resources: [`mm2-offset-syncs.${target}.internal`], apis: ["Metadata"] } },
  { cluster: target, kind: "topic-records", operation: "Read", expected: { kind: "topic-metadata", resources: [`${source}.checkpoints.internal`], apis: ["Metadata"] } },
  // Cluster Describe only makes ListGroups list groups Gapwatch may not describe; with Describe on groups * it hides nothing.
  { cluster: source, kind: "group-list", operation: "Describe", expected: null },
];

describe("each generated ACL removed in turn is a named blind spot", () => {
  for (const removal of removals) {
    it(`${removal.operation} (${removal.kind}) removed on ${removal.cluster}: ${removal.expected ? `blind spot ${removal.expected.kind}` : "quiet, groups still read"}`, async () => {
      const cluster = clusters.get(removal.cluster)!;
      const rule = planLocked().find((c) => c.cluster === removal.cluster)!.rules.find((r) => r.kind === removal.kind && r.operation === removal.operation)!;
      await applyAcl(cluster, rule, "remove");
      try {
        if (removal.expected === null) {
          const snapshot = await runtime.collector.runCycle();
          await runtime.collector.runCycle();
          const health = await cycleUntilHealth(() => true, "a cycle without Describe on the cluster");
          expect(health.spots).toEqual([]);
          const billing = snapshot.clusters.find((c) => c.alias === source)!.groups.find((g) => g.groupId === group)!;
          expect([billing.error, billing.offsets.length]).toEqual([null, 2]);
          return;
        }
        const expected = removal.expected;
        const { status, spots } = await cycleUntilHealth((all) => all.some((b) => b.cluster === removal.cluster && b.kind === expected.kind), `blind spot ${expected.kind}`);
        expect(status).toBe("degraded");
        const spot = spots.find((b) => b.cluster === removal.cluster && b.kind === expected.kind)!;
        expect(spot.resources).toEqual(expect.arrayContaining(expected.resources));
        expect(spot.apis).toEqual(expect.arrayContaining(expected.apis));
        expect(spot.error).toMatch(/_AUTHORIZATION_FAILED/);
        // The fix is the generator's own line for the removed ACL, for Gapwatch's principal and address.
        expect(spot.fix).toBe(renderAclCommand(rule, principal, [cluster.saslBootstrap]));
        expect(await readMetricLines()).toContain(`gapwatch_blind_spots{cluster="${removal.cluster}",kind="${expected.kind}"} ${spot.resources.length}`);
        say(`${removal.kind} on ${removal.cluster}: ${spot.resources.length} resources named`);
      } finally {
        await applyAcl(cluster, rule, "add");
      }
      const after = await cycleUntilHealth((all) => all.length === 0, "no blind spot once the ACL is back");
      expect(after.spots).toEqual([]);
    });
  }
});

describe("Connect through the same setup", () => {
  // Last: runRecover restores the sandbox's connector config, which lacks this flow's producer override.
  it("TASK_FAILED with the root cause, from Connect", async () => {
    const failed = await runFailTask(aclState, { source, target });
    try {
      await runtime.collector.runCycle();
      const alerts = firing("TASK_FAILED").filter((a) => a.evidence.connector === failed.connector);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.evidence.rootCause).toBe(failed.rootCause);
    } finally {
      await runRecover(aclState, { source, target });
    }
  });
});
