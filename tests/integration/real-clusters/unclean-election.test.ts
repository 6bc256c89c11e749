import { rmSync } from "node:fs";
import { readSyncHistories } from "@/lib/collector/sync-history";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { type FlowPartition, flowPartitionKey, type PartitionState, type Snapshot } from "@/lib/collector/types";
import { deleteConnector, getMirrorSourceOffsets, putConnectorConfig, stopConnector } from "@/lib/connect";
import { requestConnect } from "@/lib/connect/client";
import { getConfig } from "@/lib/config";
import { createCollectingRuntime } from "@/lib/pipeline/runtime";
import { type ConsoleRecord, readPartition, runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { classpathOf } from "@/lib/sandbox/jars";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import { connectorNames, sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { type MultiBrokerCluster, restartClusterBroker, startMultiBrokerCluster, stopClusterBroker, stopMultiBrokerCluster } from "@/lib/sandbox/multi-broker-cluster";
import { sandboxDir } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState, type SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen, waitUntilReplicating } from "../support/runtime";
import { type DescribedPartition, describePartitions } from "./kafka-cli-truth";

/**
 * KAFKA-763 for real: an unclean leader election truncates acknowledged records, and producers
 * refill the log past its old end before Gapwatch looks again — the case a "log end went back"
 * rule misses. Own 3-broker cluster `south` (a KRaft controller and brokers 1–3, stopped by PID);
 * `ledger` has one partition on brokers [2, 1] (2 preferred), min.insync.replicas=1 (the leader
 * keeps acknowledging alone) and unclean.leader.election.enable=true. Broker 3 only keeps the
 * internal topics (__consumer_offsets, RF 3) led while brokers 1 and 2 are both down.
 *
 * Sequence, with Gapwatch cycles only where named: follower 1 stopped (out of the ISR); 20 records
 * acknowledged by leader 2 alone (cycle: log end 50); groups `reader` and `early` commit 45 and 20;
 * leader 2 stopped; broker 1 started and elected uncleanly (by the controller, as the topic allows,
 * else `kafka-leader-election --election-type unclean`); 40 new records (log end 70, past the old
 * 50) while broker 2 returns as a follower (it truncates); cycle. The truth is read from record
 * contents: Kafka's ConsoleConsumer before, DumpLogSegments on broker 2's own segment after. Then a
 * clean (preferred) leader change back to broker 2 must stay quiet.
 *
 * MM2 copies `ledger` to the sandbox's west (`south.ledger`) all along: a MirrorSourceConnector
 * `south -> west` on the shared Connect worker (its offset syncs on south, led by broker 3, which
 * never stops), deleted with its positions and target topic at the end. Before the election it has
 * copied 0–49; the target's records (ConsoleConsumer) say what it did after.
 */
const alias = "south";
const topic = "ledger";
const targetTopic = `${alias}.${topic}`;
const flowId = `${alias}->west`;
const syncsTopic = "mm2-offset-syncs.west.internal";
const firstBatch = 30;
const acknowledgedAlone = 20;
const refill = 40;
/** The outage scenario's topics: one refilled past its old end after the election, one that gets nothing new. */
const busy = "busy";
const quiet = "quiet";
const outageTopics = [busy, quiet];

let state: SandboxState;
let cluster: MultiBrokerCluster | null = null;
let runtime: ReturnType<typeof createCollectingRuntime>;
const mm2Source = connectorNames(alias, "west").source;
const endpoint = () => ({ url: state.connect.url, timeoutMs: 15_000 });

beforeAll(async () => {
  state = readSandboxState();
  const baseDir = path.join(sandboxDir, "real-clusters");
  // A crashed earlier run's data would hold the topic already (its JVMs were stopped by pidfile).
  rmSync(path.join(baseDir, alias), { recursive: true, force: true });
  const started = Date.now();
  cluster = await startMultiBrokerCluster({
    alias,
    baseDir,
    classpath: classpathOf(state.jars),
    logOption: writeLogConfig(sandboxDir, state.kafkaVersion),
  });
  report("3-broker cluster up", [`${((Date.now() - started) / 1000).toFixed(1)} s`]);
  await ensureTopics(cluster.bootstrap, [
    { topic, partitions: 1, replicaAssignment: [[2, 1]], configs: { "min.insync.replicas": "1", "unclean.leader.election.enable": "true" } },
    // MM2's offset syncs led by broker 3, so that they stay writable and readable throughout.
    { topic: syncsTopic, partitions: 1, replicaAssignment: [[3, 1, 2]], configs: { "cleanup.policy": "compact" } },
  ]);
  // A crashed earlier run's connector, positions and target topic would make MM2 resume past 0.
  await removeMm2Flow();
  const flow = { source: { alias, bootstrap: cluster.bootstrap, replicationFactor: 3 }, target: { alias: "west", bootstrap: state.clusters.west!.bootstrap } };
  // The outage scenario's topics too: created later, picked up by MM2's topic refresh (5 s) while ledger is idle.
  await putConnectorConfig(endpoint(), mm2Source, sourceConnectorConfig(flow, { topics: [topic, ...outageTopics].join(", ") }));
  await waitForConnectorsRunning(endpoint(), [mm2Source]);
  await produce("a", 0, firstBatch);
  runtime = createSandboxRuntime({ ...state, clusters: { ...state.clusters, [alias]: { bootstrap: cluster.bootstrap } } }, 5);
  await cycleUntil(
    (s) => ledgerOf(s)?.logEnd === BigInt(firstBatch) && ledgerOf(s)?.isr.length === 2 && copiedOf(s)?.targetLogEnd === BigInt(firstBatch),
    "ledger written, fully replicated and copied to west",
  );
});

afterAll(async () => {
  await runtime?.collector.stop();
  runtime?.alerts.stop();
  await runtime?.store.close();
  if (state) await removeMm2Flow();
  if (cluster) await stopMultiBrokerCluster(cluster);
  // Its connectors came and went on the shared Connect worker (rebalances): the next file needs east -> west copying.
  if (state) await waitUntilReplicating(state);
});

describe("an unclean leader election truncates acknowledged records (KAFKA-763)", () => {
  let before: Map<bigint, string>;
  let epochBefore = 0;

  it("UNCLEAN_TRUNCATION names exactly the offsets whose records are gone, although the log end grew past the old one", async () => {
    // Follower 1 leaves the ISR (controlled shutdown); leader 2 keeps acknowledging alone.
    await stopClusterBroker(cluster!, 1, "graceful");
    await waitForPartition((p) => p.leader === 2 && p.isr.join() === "2", "broker 1 out of the ISR");
    await produce("b", firstBatch, acknowledgedAlone);
    const acknowledged = BigInt(firstBatch + acknowledgedAlone);
    const seen = await cycleUntil(
      (s) => ledgerOf(s)?.logEnd === acknowledged && copiedOf(s)?.mm2Position === acknowledged && copiedOf(s)?.targetLogEnd === acknowledged,
      "the records acknowledged by broker 2 alone, copied by MM2",
    );
    const values = await readValues(0n, firstBatch + acknowledgedAlone);
    const copiedBefore = await readTarget();
    epochBefore = ledgerOf(seen)!.leaderEpoch;
    before = values;
    // MM2 has copied 0–49: west holds every value, b-30..b-49 included, at the same offsets.
    expect(copiedBefore.map((r) => `${r.offset}:${r.value}`)).toEqual([...values].map(([offset, value]) => `${offset}:${value}`));
    // Before any loss: Kafka's DescribeTopicPartitions names no eligible leader replica (KIP-966)
    // besides leader 2, alone in the ISR, so losing broker 2 forces an unclean election.
    expect(ledgerOf(seen)!.eligibleLeaderReplicas).toEqual([]);
    const atRisk = firing().filter((a) => a.type === "NO_CLEAN_SUCCESSOR");
    expect(atRisk.map((a) => [a.key, a.evidence.partitionIds, a.evidence.leaders])).toEqual([[`NO_CLEAN_SUCCESSOR|${alias}|${topic}`, "0", "2"]]);
    // The topic's min.insync.replicas=1 (read in the DescribeConfigs batch): leader 2 commits alone, no ELR is kept.
    expect([atRisk[0]!.evidence.minInsyncReplicas, atRisk[0]!.evidence.underMinIsr]).toEqual([1, false]);
    report("at risk", [atRisk[0]!.summary]);
    // Consumer groups as kafkajs commits (no leader epoch): one read 45 records, one 20.
    await commitOffsets({ reader: 45, early: 20 });

    // Leader 2 goes; stale broker 1 comes back and is elected without the last 20 records; the
    // refill and broker 2's return (as a follower: it truncates) overlap.
    await stopClusterBroker(cluster!, 2, "graceful");
    await restartClusterBroker(cluster!, 1);
    await electUncleanly();
    await Promise.all([produce("c", firstBatch, refill), restartClusterBroker(cluster!, 2)]);
    await waitForPartition((p) => p.isr.length === 2, "broker 2 back in the ISR");

    // Kafka's truth: the values before (ConsoleConsumer) and broker 2's own log after (DumpLogSegments):
    // broker 2 wrote 0–49 as leader and now holds, at every offset, what leader 1 has.
    const [after] = await Promise.all([dumpSegmentOf(2), waitForCommits({ reader: 45, early: 20 })]);
    // MM2 copies what the new leader holds until Connect stores its last copied offset 69 (either way).
    await waitForMm2Offset(BigInt(firstBatch + refill - 1));
    const target = await readTarget();
    expect(after.size).toBe(firstBatch + refill);
    const gone = [...before].filter(([offset, value]) => after.get(offset) !== value).map(([offset]) => offset);
    report("offsets whose record changed", [gone.map(String).join(",")]);
    expect(gone).toEqual(Array.from({ length: acknowledgedAlone }, (_, i) => BigInt(firstBatch + i)));
    expect([...after.values()].filter((v) => v.startsWith("b-"))).toEqual([]);
    const onTarget = (label: string) => target.filter((r) => r.value.startsWith(`${label}-`));
    const offsetsOf = (records: ConsoleRecord[]) => records.map((r) => r.offset);
    report("west's south.ledger", [target.map((r) => `${r.offset}:${r.value}`).join(" ")]);
    // What MM2 4.3.1 did (KIP-320: its consumer validated its position against the new leader's
    // epoch end and rewound to the divergence point, 30): west keeps the lost b-30..b-49 and holds
    // the new c-30..c-69 after them — both versions of offsets 30–49.
    const lostCopies = onTarget("b");
    const newCopies = onTarget("c");
    expect(lostCopies.map((r) => r.value)).toEqual(gone.map((o) => `b-${o}`));
    expect(newCopies.map((r) => r.value)).toEqual(Array.from({ length: refill }, (_, i) => `c-${firstBatch + i}`));
    expect(target).toHaveLength(firstBatch + acknowledgedAlone + refill);
    const reusedCopies = newCopies.slice(0, acknowledgedAlone);

    const snapshot = await runtime.collector.runCycle();
    const ledger = ledgerOf(snapshot)!;
    report("after the election", [JSON.stringify(ledger, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))]);
    const syncs = readSyncHistories(runtime.collector.history().offsetSyncs).list(flowPartitionKey(flowId, topic, 0));
    report("MM2's offset syncs", [syncs.map((x) => `${x.upstream}->${x.downstream}`).join(" ")]);
    // The old rule alone would see nothing: the log end grew from 50 to 70.
    expect(ledger.logEnd).toBe(BigInt(firstBatch + refill));
    expect(ledger.previousEpochEnd).toMatchObject({ epoch: epochBefore, endOffset: gone[0], knownLogEnd: acknowledged });
    const truncations = firing().filter((a) => a.type === "UNCLEAN_TRUNCATION");
    expect(truncations.map((a) => a.key)).toEqual([`UNCLEAN_TRUNCATION|${alias}|${topic}|0|epoch${ledger.leaderEpoch}`]);
    expect(truncations[0]!.evidence).toMatchObject({
      firstLostOffset: String(gone[0]),
      lastLostOffset: String(gone[gone.length - 1]),
      lostCount: String(gone.length),
      lostCountIsLowerBound: false,
      previousLogEnd: String(firstBatch + acknowledgedAlone),
      newLogEnd: String(firstBatch + refill),
      rewrittenCount: String(acknowledgedAlone),
      previousLeaderEpoch: epochBefore,
      newLeaderEpoch: ledger.leaderEpoch,
      leader: ledger.leader,
      // `early` committed 20, before the divergence point: it read nothing that is gone.
      groupsPastDivergence: "reader at 45 (no leader epoch)",
      groupsWithoutLeaderEpoch: 1,
      // MM2's consequences, each compared with west's records above.
      copiedByMm2: `${flowId}: ${describeOffsets(gone)}`,
      copiedByMm2Count: String(acknowledgedAlone),
      copiedLostOnTarget: `${flowId}: ${targetTopic} ${describeOffsets(offsetsOf(lostCopies))}`,
      mm2AfterTruncation: `${flowId}: rewound to ${gone[0]}`,
      reusedOffsetsCopied: `${flowId}: ${describeOffsets(gone)} as ${targetTopic} ${describeOffsets(offsetsOf(reusedCopies))}`,
      reusedOffsetsCopiedCount: String(reusedCopies.length),
    });
    expect(truncations[0]!.summary).toContain(
      `; MM2 ${flowId} had already copied 20 of them (${describeOffsets(gone)}): only west still holds them, ` +
        `as ${targetTopic} ${describeOffsets(offsetsOf(lostCopies))}; MM2 then went back to offset ${gone[0]} and copied the 20 new ` +
        `records at offsets ${describeOffsets(gone)} too, as ${targetTopic} ${describeOffsets(offsetsOf(reusedCopies))}: ` +
        `west holds both versions of offsets ${describeOffsets(gone)}`,
    );
    report("finding", [truncations[0]!.summary]);
    const others = firing().filter((a) => !["UNCLEAN_TRUNCATION", "UNDER_REPLICATED", "NO_CLEAN_SUCCESSOR"].includes(a.type));
    expect(others.map((a) => a.key)).toEqual([]);
    // Three broker restarts and four Kafka tool JVMs: on a loaded 2-core machine, past the default 180 s.
  }, 360_000);

  it("a clean (preferred) leader change afterwards stays quiet", async () => {
    const start = ledgerOf(await runtime.collector.runCycle())!;
    await runKafkaTool(state, "org.apache.kafka.tools.LeaderElectionCommand", [
      "--bootstrap-server", cluster!.bootstrap, "--election-type", "preferred", "--topic", topic, "--partition", "0",
    ]).catch((err: unknown) => report("preferred election", [String(err)]));
    await waitForPartition((p) => p.leader === 2, "broker 2 leader again");
    const snapshot = await runtime.collector.runCycle();
    const ledger = ledgerOf(snapshot)!;
    // Broker 2 was in the ISR: its log holds everything of the previous epoch.
    expect(ledger.leaderEpoch).toBeGreaterThan(start.leaderEpoch);
    expect(ledger.previousEpochEnd).toMatchObject({ epoch: start.leaderEpoch, endOffset: start.logEnd, knownLogEnd: start.logEnd });
    expect(firing().filter((a) => a.type === "UNCLEAN_TRUNCATION")).toHaveLength(1);
  });
});

/**
 * The common real path (issue 31): unclean election is off (Kafka's default) on `busy` and `quiet`
 * (one partition each on brokers [2, 1], min.insync.replicas=1), so when leader 2 — alone in the
 * ISR after follower 1 left — dies, the partitions stay OFFLINE. Gapwatch polls through the
 * outage (two cycles), is restarted (its memory and leader marks from the store) and polls once
 * more; broker 1 returns without the last 20 records; an operator forces it to lead with Kafka's
 * `kafka-leader-election --election-type unclean`. `busy` is then refilled past its old end,
 * `quiet` gets nothing. The truth: DumpLogSegments of the old leader's (broker 2, stopped) and the
 * new leader's segment files, and west's copies (ConsoleConsumer). (`ledger`, unclean election on,
 * goes OFFLINE too and is elected back on broker 1 by the controller with nothing lost: quiet.)
 */
describe("an unclean election forced after the partitions were OFFLINE for cycles, Gapwatch restarted meanwhile", () => {
  it("UNCLEAN_TRUNCATION gives the exact lost range on a quiet and a busy partition, and nothing else is raised", async () => {
    await ensureTopics(
      cluster!.bootstrap,
      outageTopics.map((t) => ({ topic: t, partitions: 1, replicaAssignment: [[2, 1]], configs: { "min.insync.replicas": "1", "unclean.leader.election.enable": "false" } })),
    );
    const all = (check: (s: Snapshot, t: string) => boolean) => (s: Snapshot) => outageTopics.every((t) => check(s, t));
    await Promise.all(outageTopics.map((t) => produce("a", 0, firstBatch, t)));
    await cycleUntil(
      all((s, t) => ledgerOf(s, t)?.logEnd === BigInt(firstBatch) && ledgerOf(s, t)?.isr.length === 2 && copiedOf(s, t)?.targetLogEnd === BigInt(firstBatch)),
      "busy and quiet written, in sync on brokers 2 and 1, copied to west",
      120_000,
    );
    await stopClusterBroker(cluster!, 1, "graceful");
    for (const t of outageTopics) await waitForPartition((p) => p.leader === 2 && p.isr.join() === "2", `broker 1 out of ${t}'s ISR`, 60_000, t);
    await Promise.all(outageTopics.map((t) => produce("b", firstBatch, acknowledgedAlone, t)));
    const acknowledged = BigInt(firstBatch + acknowledgedAlone);
    const seen = await cycleUntil(
      all((s, t) => ledgerOf(s, t)?.logEnd === acknowledged && copiedOf(s, t)?.mm2Position === acknowledged && copiedOf(s, t)?.targetLogEnd === acknowledged),
      "the records acknowledged by broker 2 alone, copied by MM2",
    );
    const epochBefore = new Map(outageTopics.map((t) => [t, ledgerOf(seen, t)!.leaderEpoch]));

    // The outage: leader 2 goes; with unclean election off, nobody leads.
    await stopClusterBroker(cluster!, 2, "graceful");
    await waitForOffline(outageTopics);
    // Kafka's truth before: the old leader's own segment (broker 2, stopped) holds a-0..a-29, b-30..b-49.
    const oldLeader = new Map<string, Map<bigint, string>>();
    for (const t of outageTopics) oldLeader.set(t, await dumpSegmentOf(2, t));
    for (const t of outageTopics) {
      expect([...oldLeader.get(t)!.values()]).toEqual([
        ...Array.from({ length: firstBatch }, (_, i) => `a-${i}`),
        ...Array.from({ length: acknowledgedAlone }, (_, i) => `b-${firstBatch + i}`),
      ]);
    }
    const isOffline = (s: Snapshot, t: string) => ledgerOf(s, t)?.leader === null && ledgerOf(s, t)?.logEnd === null;
    for (let i = 0; i < 2; i++) {
      const during = await runtime.collector.runCycle();
      expect(outageTopics.filter((t) => isOffline(during, t))).toEqual(outageTopics);
    }
    report("firing during the outage", [firing().map((a) => a.key).join(", ")]);
    expect(firing().filter((a) => a.type === "OFFLINE" && outageTopics.includes(a.topic ?? "")).map((a) => a.topic).sort()).toEqual(outageTopics);

    // Gapwatch restarted during the outage: the new process knows the marks only from the store.
    await runtime.collector.stop();
    runtime.alerts.stop();
    await runtime.store.close();
    runtime = createCollectingRuntime(getConfig(), "all");
    const afterRestart = await runtime.collector.runCycle();
    expect(outageTopics.filter((t) => isOffline(afterRestart, t))).toEqual(outageTopics);
    // Broker 1 returns without b-30..b-49; unclean election off: still OFFLINE until the operator acts.
    await restartClusterBroker(cluster!, 1);
    const stillOffline = await runtime.collector.runCycle();
    expect(outageTopics.filter((t) => ledgerOf(stillOffline, t)?.leader === null)).toEqual(outageTopics);
    for (const t of outageTopics) {
      const out = await runKafkaTool(state, "org.apache.kafka.tools.LeaderElectionCommand", [
        "--bootstrap-server", cluster!.bootstrap, "--election-type", "unclean", "--topic", t, "--partition", "0",
      ]);
      report(`kafka-leader-election --election-type unclean --topic ${t}`, [out.trim()]);
      await waitForPartition((p) => p.leader === 1, `broker 1 leads ${t}`, 60_000, t);
    }

    // The first cycle after the election: both truncations, exact, from marks made before the restart.
    const elected = await runtime.collector.runCycle();
    for (const t of outageTopics) {
      const p = ledgerOf(elected, t)!;
      expect(p.leaderEpoch).toBeGreaterThan(epochBefore.get(t)! + 1);
      expect(p.previousEpochEnd).toMatchObject({ epoch: epochBefore.get(t), endOffset: BigInt(firstBatch), knownLogEnd: acknowledged });
    }
    const keyOf = (t: string, epoch: number) => `UNCLEAN_TRUNCATION|${alias}|${t}|0|epoch${epoch}`;
    const expectedKeys = outageTopics.map((t) => keyOf(t, ledgerOf(elected, t)!.leaderEpoch)).sort();
    const truncationKeys = () => firing().filter((a) => a.type === "UNCLEAN_TRUNCATION" && outageTopics.includes(a.topic ?? "")).map((a) => a.key).sort();
    expect(truncationKeys()).toEqual(expectedKeys);

    // busy refilled past its old end; broker 2 returns as a follower (it truncates); MM2 follows.
    await produce("c", firstBatch, refill, busy);
    await restartClusterBroker(cluster!, 2);
    for (const t of outageTopics) await waitForPartition((p) => p.isr.length === 2, `broker 2 back in ${t}'s ISR`, 90_000, t);
    await waitForMm2Offset(BigInt(firstBatch + refill - 1), 90_000, busy);
    const total = BigInt(firstBatch + acknowledgedAlone + refill);
    await cycleUntil((s) => copiedOf(s, busy)?.targetLogEnd === total && copiedOf(s, busy)?.mm2Position === BigInt(firstBatch + refill), "MM2 copied busy's new records");
    // More cycles: the rewind's offset syncs are read, quiet's position stays past its log end.
    for (let i = 0; i < 3; i++) await runtime.collector.runCycle();
    const last = await runtime.collector.runCycle();
    report("after the election", outageTopics.map((t) => `${t}: ${JSON.stringify({ source: ledgerOf(last, t), flow: copiedOf(last, t) }, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`));

    // Kafka's truth after: the new leader's segment; what is gone is what the old leader held and it does not.
    for (const t of outageTopics) {
      const newLeader = await dumpSegmentOf(1, t);
      const gone = [...oldLeader.get(t)!].filter(([offset, value]) => newLeader.get(offset) !== value).map(([offset]) => offset);
      expect(gone).toEqual(Array.from({ length: acknowledgedAlone }, (_, i) => BigInt(firstBatch + i)));
      expect([...newLeader.values()].filter((v) => v.startsWith("b-"))).toEqual([]);
      expect(newLeader.size).toBe(t === busy ? firstBatch + refill : firstBatch);
      const alert = firing().find((a) => a.type === "UNCLEAN_TRUNCATION" && a.topic === t)!;
      report(`${t}: finding`, [alert.summary]);
      expect(alert.evidence).toMatchObject({
        firstLostOffset: String(gone[0]),
        lastLostOffset: String(gone[gone.length - 1]),
        lostCount: String(gone.length),
        lostCountIsLowerBound: false,
        previousLogEnd: String(acknowledged),
        previousEpochEndOffset: String(gone[0]),
        previousLeaderEpoch: epochBefore.get(t),
        copiedByMm2: `${flowId}: ${describeOffsets(gone)}`,
      });
    }
    // What MM2 did (west's records): the lost b-30..b-49 kept on both, busy's new c-30..c-69 copied after them.
    const quietCopy = await readTarget(quiet);
    const busyCopy = await readTarget(busy);
    expect(quietCopy.map((r) => r.value)).toEqual([...oldLeader.get(quiet)!.values()]);
    expect(busyCopy.map((r) => r.value)).toEqual([...oldLeader.get(busy)!.values(), ...Array.from({ length: refill }, (_, i) => `c-${firstBatch + i}`)]);
    // What Gapwatch says MM2 did, against those records: busy's new c-30..c-49 are west's offsets 50–69 (both
    // versions of 30–49 on west), judged in a later cycle than the election's; quiet's MM2 has copied nothing since.
    const reusedCopies = busyCopy.slice(firstBatch + acknowledgedAlone, firstBatch + 2 * acknowledgedAlone);
    expect(reusedCopies.map((r) => r.value)).toEqual(Array.from({ length: acknowledgedAlone }, (_, i) => `c-${firstBatch + i}`));
    const alertOf = (t: string) => firing().find((a) => a.type === "UNCLEAN_TRUNCATION" && a.topic === t)!;
    const lost = describeOffsets(Array.from({ length: acknowledgedAlone }, (_, i) => BigInt(firstBatch + i)));
    expect(alertOf(busy).evidence).toMatchObject({
      copiedLostOnTarget: `${flowId}: ${alias}.${busy} ${lost}`,
      mm2AfterTruncation: `${flowId}: rewound to ${firstBatch}`,
      reusedOffsetsCopied: `${flowId}: ${lost} as ${alias}.${busy} ${describeOffsets(reusedCopies.map((r) => r.offset))}`,
      reusedOffsetsCopiedCount: String(acknowledgedAlone),
    });
    expect(alertOf(quiet).evidence).toMatchObject({ copiedLostOnTarget: `${flowId}: ${alias}.${quiet} ${lost}`, mm2AfterTruncation: `${flowId}: not past the truncation yet` });
    // quiet: MM2's position stays past the new log end (Connect keeps 50 while nothing new comes).
    expect(copiedOf(last, quiet)?.mm2Position).toBe(acknowledged);
    expect(ledgerOf(last, quiet)?.logEnd).toBe(BigInt(firstBatch));

    // One event, one alert: the truncations are all that fire on busy and quiet, and nothing else was raised.
    const about = (a: AlertRecord) => outageTopics.some((t) => a.topic === t || a.topic === `${alias}.${t}`);
    expect(truncationKeys()).toEqual(expectedKeys);
    // The outage's own alerts are no longer seen (they resolve after the one-minute hysteresis).
    const outage = firing().filter((a) => about(a) && a.type !== "UNCLEAN_TRUNCATION");
    expect(outage.filter((a) => a.lastSeen >= last.takenAt).map((a) => a.key)).toEqual([]);
    const raised = runtime.alerts.list().filter((a) => about(a) && !["UNCLEAN_TRUNCATION", "OFFLINE", "UNDER_REPLICATED", "NO_CLEAN_SUCCESSOR"].includes(a.type));
    expect(raised.map((a) => a.key)).toEqual([]);
    // ledger went OFFLINE too and was elected back on broker 1 (unclean allowed) with nothing lost: no new truncation.
    expect(firing().filter((a) => a.type === "UNCLEAN_TRUNCATION" && a.topic === topic)).toHaveLength(1);
    // Three broker restarts, a restart of Gapwatch and some ten Kafka tool JVMs on a loaded 2-core machine.
  }, 600_000);
});

/** Evidence for the run's log. */
function report(step: string, lines: string[]): void {
  process.stderr.write(`[unclean-election] ${step}:\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
}

/** Produces `count` records `<label>-<n>` (n from `from`), acks=all, to partition 0 of `to`. */
async function produce(label: string, from: number, count: number, to = topic): Promise<void> {
  const producer = sandboxKafka(cluster!.bootstrap, "gapwatch-unclean-election").producer();
  await producer.connect();
  try {
    const messages = Array.from({ length: count }, (_, i) => ({ partition: 0, value: `${label}-${from + i}` }));
    await producer.send({ topic: to, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/**
 * The topic allows unclean elections, so the controller usually elects broker 1 by itself once it
 * is back; otherwise `kafka-leader-election --election-type unclean` does.
 */
async function electUncleanly(): Promise<void> {
  const byController = await waitForPartition((p) => p.leader === 1, "broker 1 elected by the controller", 3000).then(
    () => true,
    () => false,
  );
  if (byController) return;
  const out = await runKafkaTool(state, "org.apache.kafka.tools.LeaderElectionCommand", [
    "--bootstrap-server", cluster!.bootstrap, "--election-type", "unclean", "--topic", topic, "--partition", "0",
  ]).catch((err: unknown) => String(err));
  report("kafka-leader-election --election-type unclean", [out.trim()]);
  await waitForPartition((p) => p.leader === 1, "broker 1 elected");
}

/** Polls Kafka's metadata (kafkajs, not Gapwatch) until partition 0 of `of` matches. */
async function waitForPartition(
  check: (p: { leader: number; isr: number[] }) => boolean,
  what: string,
  timeoutMs = 60_000,
  of = topic,
): Promise<void> {
  const admin = sandboxKafka(cluster!.bootstrap, "gapwatch-unclean-election-admin").admin();
  await admin.connect();
  const deadline = Date.now() + timeoutMs;
  const started = Date.now();
  let last = "";
  try {
    while (Date.now() < deadline) {
      const found = await admin.fetchTopicMetadata({ topics: [of] }).catch((err: unknown) => String(err));
      const p = typeof found === "string" ? null : found.topics[0]?.partitions.find((x) => x.partitionId === 0);
      if (p && check({ leader: p.leader, isr: [...p.isr].sort() })) {
        report(what, [`${((Date.now() - started) / 1000).toFixed(1)} s`]);
        return;
      }
      last = typeof found === "string" ? found : JSON.stringify(p);
      await sleep(500);
    }
  } finally {
    await admin.disconnect();
  }
  throw new Error(`timed out waiting for ${what}: ${last}`);
}

/** Waits until Kafka's TopicCommand (`--unavailable-partitions`) lists partition 0 of every one of `topics` without a leader. */
async function waitForOffline(topics: readonly string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let listed: DescribedPartition[] = [];
  while (Date.now() < deadline) {
    listed = await describePartitions(state, cluster!.bootstrap, "--unavailable-partitions");
    if (topics.every((t) => listed.some((p) => p.topic === t && p.partition === 0 && p.leader === null))) return;
    await sleep(1000);
  }
  throw new Error(`timed out waiting for ${topics.join(", ")} OFFLINE: ${JSON.stringify(listed)}`);
}

/** Commits each group's offset on partition 0 (kafkajs: no leader epoch in the commit). */
async function commitOffsets(offsets: Record<string, number>): Promise<void> {
  const admin = sandboxKafka(cluster!.bootstrap, "gapwatch-unclean-election-admin").admin();
  await admin.connect();
  try {
    for (const [groupId, offset] of Object.entries(offsets)) await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: String(offset) }] });
  } finally {
    await admin.disconnect();
  }
}

/** Waits until Kafka answers with the commits (their coordinators moved while brokers 1 and 2 were down). */
async function waitForCommits(offsets: Record<string, number>, timeoutMs = 30_000): Promise<void> {
  const admin = sandboxKafka(cluster!.bootstrap, "gapwatch-unclean-election-admin").admin();
  await admin.connect();
  const deadline = Date.now() + timeoutMs;
  let last = "";
  try {
    while (Date.now() < deadline) {
      const read = await Promise.all(
        Object.keys(offsets).map((groupId) =>
          admin.fetchOffsets({ groupId, topics: [topic] }).then(
            (r) => r[0]?.partitions.find((p) => p.partition === 0)?.offset,
            (err: unknown) => String(err),
          ),
        ),
      );
      if (read.every((o, i) => o === String(Object.values(offsets)[i]))) return;
      last = read.join(", ");
      await sleep(500);
    }
  } finally {
    await admin.disconnect();
  }
  throw new Error(`timed out waiting for the committed offsets: ${last}`);
}

/** Offset → value of partition 0, read with Kafka's ConsoleConsumer. */
async function readValues(from: bigint, count: number): Promise<Map<bigint, string>> {
  const records = await readAll(cluster!.bootstrap, topic, from, count);
  return new Map(records.map((r) => [r.offset, r.value]));
}

/**
 * `count` records from `from` with ConsoleConsumer. On a loaded machine its 8 s idle timeout can
 * pass before the first fetch answers (seen: 0 records at load 19): read again, up to a deadline.
 */
async function readAll(bootstrap: string, name: string, from: bigint, count: number, timeoutMs = 90_000): Promise<ConsoleRecord[]> {
  const deadline = Date.now() + timeoutMs;
  let records = await readPartition(state, bootstrap, name, 0, from, count);
  while (records.length < count && Date.now() < deadline) {
    report(`ConsoleConsumer read ${records.length} of ${count} records of ${name}`, ["again"]);
    records = await readPartition(state, bootstrap, name, 0, from, count);
  }
  expect(records).toHaveLength(count);
  return records;
}

/** Offset → value of broker `nodeId`'s own first segment of partition 0 of `of` (DumpLogSegments). */
async function dumpSegmentOf(nodeId: number, of = topic): Promise<Map<bigint, string>> {
  const dir = path.join(cluster!.brokers.find((b) => b.nodeId === nodeId)!.dataDir, "log", `${of}-0`);
  const out = await runKafkaTool(state, "org.apache.kafka.tools.DumpLogSegments", ["--files", path.join(dir, "00000000000000000000.log"), "--print-data-log"]);
  const values = new Map<bigint, string>();
  for (const m of out.matchAll(/\| offset: (\d+) .*? payload: (\S+)/g)) values.set(BigInt(m[1]!), m[2]!);
  return values;
}

/** Every record of west's copy of `of` (`south.ledger`; ConsoleConsumer), up to its log end. */
async function readTarget(of = topic): Promise<ConsoleRecord[]> {
  const west = state.clusters.west!.bootstrap;
  const copy = `${alias}.${of}`;
  const end = (await fetchLogEnds(west, copy)).get(0)!.high;
  return readAll(west, copy, 0n, Number(end));
}

/** Waits until Connect stores `last` as MM2's last copied offset of partition 0 of `of` (flushed every 5 s). */
async function waitForMm2Offset(last: bigint, timeoutMs = 60_000, of = topic): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = "";
  while (Date.now() < deadline) {
    const offsets = await getMirrorSourceOffsets(endpoint(), mm2Source).catch((err: unknown) => String(err));
    const stored = typeof offsets === "string" ? undefined : offsets.find((o) => o.cluster === alias && o.topic === of && o.partition === 0);
    if (stored?.offset === last) return;
    seen = typeof offsets === "string" ? offsets : String(stored?.offset);
    await sleep(500);
  }
  throw new Error(`timed out waiting for MM2's stored offset ${last}: ${seen}`);
}

/**
 * Removes the south -> west flow: the connector stopped, its stored positions deleted (Connect
 * keeps a deleted connector's offsets, KIP-875), the connector and west's `south.ledger` deleted.
 */
async function removeMm2Flow(): Promise<void> {
  const present = await getMirrorSourceOffsets(endpoint(), mm2Source).then(() => true, () => false);
  if (present) {
    await stopConnector(endpoint(), mm2Source);
    // DELETE …/offsets answers 409 until the tasks have stopped.
    const deadline = Date.now() + 30_000;
    while (await requestConnect(endpoint(), "DELETE", `/connectors/${mm2Source}/offsets`).then(() => false, () => Date.now() < deadline)) await sleep(1000);
    await deleteConnector(endpoint(), mm2Source);
  }
  const admin = sandboxKafka(state.clusters.west!.bootstrap, "gapwatch-unclean-election-admin").admin();
  await admin.connect();
  try {
    const copies = [topic, ...outageTopics].map((t) => `${alias}.${t}`);
    const present = new Set(await admin.listTopics());
    if (copies.some((t) => present.has(t))) await admin.deleteTopics({ topics: copies.filter((t) => present.has(t)), timeout: 30_000 });
  } finally {
    await admin.disconnect();
  }
}

/** `30–49` for consecutive offsets, as Gapwatch prints ranges. */
function describeOffsets(offsets: readonly bigint[]): string {
  const first = offsets[0]!;
  const last = offsets[offsets.length - 1]!;
  expect(last - first + 1n).toBe(BigInt(offsets.length));
  return `${first}–${last}`;
}

function copiedOf(snapshot: Snapshot, of = topic): FlowPartition | undefined {
  return snapshot.flows.find((f) => f.id === flowId)?.partitions.find((p) => p.topic === of && p.partition === 0);
}

function ledgerOf(snapshot: Snapshot, of = topic): PartitionState | undefined {
  return snapshot.clusters.find((c) => c.alias === alias)?.topics.find((t) => t.name === of)?.partitions[0];
}

function firing(): AlertRecord[] {
  return runtime.alerts.list({ state: "firing" }).filter((a) => a.cluster === alias || a.flow === flowId || (a.topic ?? "").startsWith(`${alias}.`));
}

const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) =>
  cycleUntilSeen(runtime.collector, check, what, {
    timeoutMs,
    describe: (s) => JSON.stringify(ledgerOf(s), (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
  });
