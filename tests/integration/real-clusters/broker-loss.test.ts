import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import type { ClusterSnapshot, Flow, Snapshot } from "@/lib/collector/types";
import { deleteConnector } from "@/lib/connect";
import { classpathOf } from "@/lib/sandbox/jars";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import { connectorNames, createFlowConnectors, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import {
  measureClusterRssMb,
  type MultiBrokerCluster,
  restartClusterBroker,
  startMultiBrokerCluster,
  stopClusterBroker,
  stopMultiBrokerCluster,
} from "@/lib/sandbox/multi-broker-cluster";
import { sandboxDir } from "@/lib/sandbox/paths";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, multiBrokerTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";
import { describePartitions, readLogEnds } from "./kafka-cli-truth";

/**
 * Broker loss on a real 3-broker source cluster. The shared sandbox's clusters stay single-node for
 * the other files, so this file starts its own cluster `north` (a KRaft controller and brokers
 * 1–3, pidfiles with the sandbox's, so a crashed run is cleaned up by the next sandbox start) and an
 * MM2 flow north -> west on the shared Connect worker, removed again at the end.
 *
 * Topics: `orders` (6) and `ledger` (3, unclean election enabled) as the sandbox's 3-broker option
 * makes them (RF 3, min.insync.replicas=2); `pairs` (RF 2: p0 on 1,2; p1 on 2,3; p2 on 3,1), so that
 * losing broker 3 leaves p0 fully replicated; `solo` (RF 1 on broker 3), which goes offline.
 * Broker 3 is SIGKILLed (a crash): until the controller fences it (broker.session.timeout.ms, 15 s
 * here) metadata still names it leader, and only its partitions may be unknown.
 */
const alias = "north";
const flowId = `${alias}->west`;
const lost = 3;
const before = 10;
const during = 7;
const copied = ["orders", "ledger", "pairs"];
const topics = [...copied, "solo"];
const partitionsOf: Record<string, number> = { orders: 6, ledger: 3, pairs: 3, solo: 1 };
const syncsTopic = "mm2-offset-syncs.west.internal";

let state: SandboxState;
let cluster: MultiBrokerCluster | null = null;
let runtime: ReturnType<typeof createSandboxRuntime>;
/** The alerts firing while broker 3 was down (set by the outage test). */
let outageKeys: string[] = [];
const endpoint = () => ({ url: state.connect.url, timeoutMs: 15_000 });
const names = connectorNames(alias, "west");

beforeAll(async () => {
  state = readSandboxState();
  const baseDir = path.join(sandboxDir, "real-clusters");
  const started = Date.now();
  cluster = await startMultiBrokerCluster({
    alias,
    baseDir,
    classpath: classpathOf(state.jars),
    logOption: writeLogConfig(sandboxDir, state.kafkaVersion),
    brokerSessionTimeoutMs: 15_000,
  });
  const startSeconds = (Date.now() - started) / 1000;
  process.stderr.write(`[broker-loss] 3-broker cluster up in ${startSeconds.toFixed(1)} s, RSS ${measureClusterRssMb(cluster).toFixed(0)} MiB\n`);

  await ensureTopics(cluster.bootstrap, [
    ...multiBrokerTopics.filter((t) => t.topic === "orders" || t.topic === "ledger"),
    { topic: "pairs", partitions: 3, replicaAssignment: [[1, 2], [2, 3], [3, 1]] },
    { topic: "solo", partitions: 1, replicaAssignment: [[lost]] },
    // Created before MM2 starts, as MM2's heartbeat connector would: a topic appearing later makes
    // MirrorSourceConnector reconfigure its task, which can copy a record twice (at-least-once).
    { topic: "heartbeats", partitions: 1, replicationFactor: 3, configs: { "cleanup.policy": "compact" } },
    // MM2's offset syncs led by broker 3, so that losing it fails Gapwatch's Fetch of them too.
    { topic: syncsTopic, partitions: 1, replicaAssignment: [[lost, 1, 2]], configs: { "cleanup.policy": "compact" } },
  ]);

  const west = state.clusters.west!.bootstrap;
  await createFlowConnectors(endpoint(), { source: { alias, bootstrap: cluster.bootstrap, replicationFactor: 3 }, target: { alias: "west", bootstrap: west } });
  await waitForConnectorsRunning(endpoint(), Object.values(names), 120_000, [names.checkpoint]);
  await produceAll(topics, before, "before");
  runtime = createSandboxRuntime({ ...state, clusters: { ...state.clusters, [alias]: { bootstrap: cluster.bootstrap } } }, 5);
  const total = topics.reduce((n, t) => n + partitionsOf[t]!, 0);
  await cycleUntil((s) => {
    const parts = copiedPartitions(s, topics);
    return parts.length === total && parts.every((p) => p.lag === 0n && p.targetLogEnd === BigInt(before));
  }, "every partition copied");
});

afterAll(async () => {
  await runtime?.collector.stop();
  runtime?.alerts.stop();
  await runtime?.store.close();
  if (state) for (const name of Object.values(names)) await deleteConnector(endpoint(), name).catch(() => undefined);
  if (cluster) await stopMultiBrokerCluster(cluster);
  // Its connectors came and went on the shared Connect worker (rebalances): the next file needs east -> west copying.
  if (state) await waitUntilReplicating(state);
});

describe("a 3-broker source cluster loses a broker and gets it back", () => {
  it("is healthy to start with: every partition copied, no alert, the unclean-election risk standing", async () => {
    const snapshot = await runtime.collector.runCycle();
    expect(northOf(snapshot).brokers.map((b) => b.nodeId)).toEqual([1, 2, 3]);
    expect(firingKeys()).toEqual([]);
    // Posture: `pairs` (2 replicas) keeps the broker's min.insync.replicas=1, `solo` has one replica.
    expect(northRisks().map((r) => [r.key, r.evidence.topicNames])).toEqual([
      [`MIN_INSYNC_REPLICAS_ONE|${alias}`, "pairs"],
      [`REPLICATION_FACTOR_ONE|${alias}`, "solo"],
      [`UNCLEAN_ELECTION_ENABLED|${alias}`, "ledger"],
    ]);
  });

  it("SIGKILL of broker 3: while metadata still names it leader, only its partitions are unknown", async () => {
    await stopClusterBroker(cluster!, lost, "kill");
    const snapshot = await runtime.collector.runCycle();
    const north = northOf(snapshot);
    expect(north.reachable).toBe(true);
    const ledByLost = north.topics.flatMap((t) => t.partitions).filter((p) => topics.includes(p.topic) && p.leader === lost);
    // The controller fences broker 3 only 15 s after its last heartbeat: it is still leader here.
    expect(ledByLost.map((p) => `${p.topic}/${p.partition}`)).toContain("solo/0");
    for (const p of ledByLost) {
      expect(p.logEnd).toBeNull();
      expect(p.error).toMatch(new RegExp(`broker ${lost}:`));
    }
    const flow = flowOf(snapshot);
    report("kill window", flow.partitions.filter((p) => p.unknown !== null).map((p) => `${p.topic}/${p.partition}: ${p.unknown!.reason}`));
    // The Fetch of MM2's offset syncs (led by broker 3) failed too: it makes unknown only the
    // partitions whose position comes from the newest sync, besides broker 3's own.
    // Named as broker 3's failure, not the cluster's: brokers 1 and 2 answer.
    expect(flow.errors.join("; ")).toMatch(new RegExp(`reading ${alias}/${syncsTopic}/0: broker ${lost}: `));
    expect(flow.errors.join("; ")).not.toMatch(/unreachable/);
    const ledKeys = new Set(ledByLost.map((p) => `${p.topic}/${p.partition}`));
    const fromSyncs = flow.partitions.filter((p) => topics.includes(p.topic) && p.positionSource === "offset-sync").map((p) => `${p.topic}/${p.partition}`);
    const unknown = flow.partitions.filter((p) => topics.includes(p.topic) && p.unknown !== null).map((p) => `${p.topic}/${p.partition}`);
    expect(unknown.sort()).toEqual([...new Set([...ledKeys, ...fromSyncs])].sort());
    for (const p of copiedPartitions(snapshot, topics).filter((x) => x.unknown === null)) {
      expect([p.topic, p.partition, p.lag, p.mm2Position, p.targetLogEnd]).toEqual([p.topic, p.partition, 0n, BigInt(before), BigInt(before)]);
    }
    expect(firingKeys()).toEqual([]);
  });

  it("once fenced: UNDER_REPLICATED lists exactly Kafka's under-replicated partitions, OFFLINE the RF-1 topic, positions stay exact", async () => {
    await cycleUntil((s) => {
      const parts = northOf(s).topics.flatMap((t) => t.partitions);
      return parts.every((p) => p.leader !== lost) && parts.find((p) => p.topic === "solo")?.leader === null;
    }, "broker 3 fenced");
    await produceAll(copied, during, "during");
    const expected = BigInt(before + during);
    const snapshot = await cycleUntil(
      (s) => copiedPartitions(s, copied).every((p) => p.lag === 0n && p.targetLogEnd === expected),
      "records produced during the outage copied",
    );

    // Kafka's own view, read once the copy is done: partitions, then log ends on both clusters.
    const [under, unavailable, sourceEnds, targetEnds] = await Promise.all([
      describePartitions(state, cluster!.bootstrap, "--under-replicated-partitions"),
      describePartitions(state, cluster!.bootstrap, "--unavailable-partitions"),
      readLogEnds(state, cluster!.bootstrap, copied.join("|")),
      readLogEnds(state, state.clusters.west!.bootstrap, copied.map((t) => `${alias}\\.${t}`).join("|")),
    ]);
    const north = northOf(snapshot);
    report("kafka-topics --under-replicated-partitions", under.map((k) => `${k.topic}/${k.partition} leader ${k.leader} replicas ${k.replicas} isr ${k.isr}`));
    const byKey = new Map(north.topics.flatMap((t) => t.partitions).map((p) => [`${p.topic}/${p.partition}`, p]));
    // Kafka's view, partition by partition, is Gapwatch's: leader, replicas, ISR.
    for (const k of [...under, ...unavailable]) {
      const p = byKey.get(`${k.topic}/${k.partition}`)!;
      expect({ leader: p.leader, replicas: p.replicas, isr: p.isr }).toEqual({ leader: k.leader, replicas: k.replicas, isr: k.isr });
    }
    expect(under.filter((k) => k.topic === "pairs").map((k) => k.partition)).toEqual([1, 2]);
    expect(under.filter((k) => k.topic === "orders")).toHaveLength(6);
    expect(unavailable.map((k) => `${k.topic}/${k.partition}`)).toEqual(["solo/0"]);

    const alerted = (type: string) =>
      firing().filter((a) => a.type === type).flatMap((a) => String(a.evidence.partitionIds).split(",").map((id) => `${a.topic}/${id}`)).sort();
    // Kafka 4 also counts a leaderless partition with a short ISR as under-replicated (with ELR the
    // controller empties the ISR of solo/0); Gapwatch reports that one as OFFLINE (critical) and not
    // twice. Without ELR (Kafka 3.9) the controller never empties an ISR (PartitionChangeBuilder.build:
    // "If ELR is enabled, the ISR is allowed to be empty"): solo/0 keeps broker 3 in it, and
    // `--under-replicated-partitions` does not list it there.
    const led = under.filter((k) => k.leader !== null);
    const kafka3 = state.kafkaVersion.startsWith("3.");
    expect(under.filter((k) => k.leader === null).map((k) => `${k.topic}/${k.partition}`)).toEqual(kafka3 ? [] : ["solo/0"]);
    expect(unavailable.map((k) => [k.topic, k.isr])).toEqual([["solo", kafka3 ? [3] : []]]);
    expect(alerted("UNDER_REPLICATED")).toEqual(led.map((k) => `${k.topic}/${k.partition}`).sort());
    expect(alerted("OFFLINE")).toEqual(["solo/0"]);
    const underTopics = [...new Set(led.map((k) => k.topic))];
    // pairs/1 and pairs/2 (RF 2) are led by the only replica left in sync, with no eligible
    // leader replica (KIP-966): NO_CLEAN_SUCCESSOR.
    outageKeys = [
      `OFFLINE|${alias}|solo`,
      `NO_CLEAN_SUCCESSOR|${alias}|pairs`,
      ...underTopics.map((t) => `UNDER_REPLICATED|${alias}|${t}`),
    ].sort();
    expect(firing().find((a) => a.type === "NO_CLEAN_SUCCESSOR")?.evidence.partitionIds).toBe("1,2");
    expect(firingKeys()).toEqual(outageKeys);

    // MM2's positions and lag, against GetOffsetShell on both clusters.
    for (const p of copiedPartitions(snapshot, copied)) {
      expect(sourceEnds.get(`${p.topic}/${p.partition}`)).toBe(expected);
      expect(targetEnds.get(`${alias}.${p.topic}/${p.partition}`)).toBe(expected);
      expect([p.topic, p.partition, p.unknown, p.mm2Position, p.lag]).toEqual([p.topic, p.partition, null, expected, 0n]);
    }
    const solo = flowOf(snapshot).partitions.find((p) => p.topic === "solo")!;
    expect(solo.unknown?.reason).toBe(`${alias} solo/0: LEADER_NOT_AVAILABLE`);
    expect(solo.lag).toBeNull();
  });

  it("broker 3 restarted: everything resolves by itself and the offline partition is copied again", async () => {
    await restartClusterBroker(cluster!, lost);
    await produceAll(["solo"], during, "after");
    const snapshot = await cycleUntil((s) => {
      const parts = northOf(s).topics.flatMap((t) => t.partitions);
      const solo = flowOf(s).partitions.find((p) => p.topic === "solo");
      return parts.every((p) => p.leader !== null && p.isr.length === p.replicas.length) && solo?.lag === 0n && solo.targetLogEnd === BigInt(before + during);
    }, "broker 3 back in every ISR and solo copied");

    const cleanAt = snapshot.takenAt;
    const healthy = await Promise.all([
      describePartitions(state, cluster!.bootstrap, "--under-replicated-partitions"),
      describePartitions(state, cluster!.bootstrap, "--unavailable-partitions"),
    ]);
    expect(healthy).toEqual([[], []]);
    const last = await runtime.collector.runCycle();
    for (const p of copiedPartitions(last, topics)) {
      expect([p.topic, p.partition, p.unknown, p.lag, p.mm2Position]).toEqual([p.topic, p.partition, null, 0n, BigInt(before + during)]);
    }
    // The outage's alerts resolve once their findings have been absent for the reconciler's one
    // minute of hysteresis (resolveAfterMs); nothing else fires meanwhile.
    await cycleUntil(() => firingKeys().length === 0, "the outage's alerts resolved", 90_000);
    expect(northRisks().map((r) => r.key)).toEqual([`MIN_INSYNC_REPLICAS_ONE|${alias}`, `REPLICATION_FACTOR_ONE|${alias}`, `UNCLEAN_ELECTION_ENABLED|${alias}`]);
    const resolved = runtime.alerts.list({ state: "resolved" }).filter(isNorthAlert);
    expect(resolved.map((a) => a.key).sort()).toEqual(outageKeys);
    for (const a of resolved) expect([a.key, a.lastSeen < cleanAt]).toEqual([a.key, true]);
  });
});

/** Evidence for the run's log (what Kafka and Gapwatch showed at each step). */
function report(step: string, lines: string[]): void {
  process.stderr.write(`[broker-loss] ${step}:\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
}

async function produceAll(names: readonly string[], count: number, label: string): Promise<void> {
  const producer = sandboxKafka(cluster!.bootstrap, "gapwatch-broker-loss").producer();
  await producer.connect();
  try {
    for (const topic of names) {
      const messages = Array.from({ length: partitionsOf[topic]! }, (_, partition) =>
        Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic, partition, seq, label }) })),
      ).flat();
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
}

const cycleUntil = async (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) => {
  const started = Date.now();
  const snapshot = await waitForCycle(check, what, timeoutMs);
  process.stderr.write(`[broker-loss] ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return snapshot;
};

const waitForCycle = (check: (s: Snapshot) => boolean, what: string, timeoutMs: number) =>
  cycleUntilSeen(runtime.collector, check, what, {
    timeoutMs,
    describe: (s) =>
      JSON.stringify(
        flowOf(s)?.partitions.filter((p) => topics.includes(p.topic)).map((p) => [p.topic, p.partition, p.lag, p.targetLogEnd, p.unknown?.reason]),
        (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v),
      ),
  });

function northOf(snapshot: Snapshot): ClusterSnapshot {
  return snapshot.clusters.find((c) => c.alias === alias)!;
}

function flowOf(snapshot: Snapshot): Flow {
  return snapshot.flows.find((f) => f.id === flowId)!;
}

function copiedPartitions(snapshot: Snapshot, of: readonly string[]) {
  const flow = flowOf(snapshot);
  return (flow?.partitions ?? []).filter((p) => of.includes(p.topic)).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

function isNorthAlert(a: AlertRecord): boolean {
  return a.cluster === alias || a.flow === flowId || (a.topic ?? "").startsWith(`${alias}.`);
}

function firing(): AlertRecord[] {
  return runtime.alerts.list({ state: "firing" }).filter(isNorthAlert);
}

function northRisks() {
  return runtime.alerts.risks().filter((r) => r.cluster === alias);
}

function firingKeys(): string[] {
  return firing().map((a) => a.key).sort();
}
