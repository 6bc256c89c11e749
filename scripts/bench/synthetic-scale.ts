import { randomUUID } from "node:crypto";
import { buildFlow, type FlowReadings } from "@/lib/collector/flow-builder";
import { discoverFlows, type FlowDefinition } from "@/lib/collector/flow-discovery";
import { type ClusterSnapshot, type CollectorHistory, flowPartitionKey, type OffsetSyncPoint, type Snapshot, type TopicState } from "@/lib/collector/types";
import { createDetectorMemory, defaultThresholds, runDetectors } from "@/lib/detect";
import { collectGarbage } from "./gc";
import { type Distribution, summarize, toMiB } from "./stats";

export interface SyntheticResult {
  basePartitions: number;
  partitions: number;
  topics: number;
  cycles: number;
  buildFlowMs: Distribution;
  detectorsMs: Distribution;
  /** JSON.stringify of the detector memory, which the alert service persists every cycle. */
  memoryJsonMs: Distribution;
  memoryJsonKiB: number;
  findings: number;
  /** Heap after forced GC: before scaling, and with the scaled world and two cycles' snapshots alive. */
  heapBeforeMiB: number;
  heapAfterMiB: number;
  /** Largest heap in use right after a cycle (before any forced GC). */
  peakHeapMiB: number;
  rssMiB: number;
}

/** A real snapshot scaled up: every flow topic duplicated under new names on both clusters. */
interface ScaledWorld {
  def: FlowDefinition;
  base: Snapshot;
  source: ClusterSnapshot;
  target: ClusterSnapshot;
  /** Names of flow topics on the source, and of their remote topics on the target. */
  sourceFlowTopics: Set<string>;
  targetFlowTopics: Set<string>;
  checkpoints: FlowReadings["checkpoints"];
  syncs: Map<string, OffsetSyncPoint[]>;
}

const recordsPerCycle = 10n;
const behind = 5n;

/**
 * Scales `base` (a real cycle's snapshot from the sandbox) to about `partitions` flow partitions
 * in memory and times buildFlow + runDetectors over `cycles` cycles with advancing offsets: every
 * partition's source log end grows by 10 records a cycle and MM2 (positions, target log end)
 * trails it by 5. The first cycle has no previous snapshot and is not counted.
 */
export function measureSyntheticScale(base: Snapshot, history: CollectorHistory, flowId: string, partitions: number, cycles: number): SyntheticResult {
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const world = scaleWorld(base, history, flowId, partitions);
  const build: number[] = [];
  const detect: number[] = [];
  const json: number[] = [];
  let memory = createDetectorMemory();
  let previous: Snapshot | null = null;
  let findings = 0;
  let jsonBytes = 0;
  let flowPartitions = 0;
  let peakHeap = 0;
  for (let c = 1; c <= cycles + 1; c++) {
    const now = base.takenAt + c * 5000;
    const source = advanceCluster(world.source, world.sourceFlowTopics, BigInt(c) * recordsPerCycle, now);
    const target = advanceCluster(world.target, world.targetFlowTopics, BigInt(c) * recordsPerCycle - behind, now);
    const readings: FlowReadings = { positions: readPositions(source, world.sourceFlowTopics), syncHistory: world.syncs, checkpoints: world.checkpoints, latestHeartbeat: now - 1000, failures: { positionsError: null, syncsError: null }, errors: [] };
    let t = performance.now();
    const flow = buildFlow(world.def, source, target, readings, now);
    const buildMs = performance.now() - t;
    const current: Snapshot = { ...base, cycle: base.cycle + c, takenAt: now, durationMs: 0, clusters: [source, target], flows: [flow] };
    t = performance.now();
    const out = runDetectors({ previous, current, history: { offsetSyncs: world.syncs }, memory, now, thresholds: defaultThresholds });
    const detectMs = performance.now() - t;
    t = performance.now();
    jsonBytes = JSON.stringify(out.memory).length;
    const jsonMs = performance.now() - t;
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    if (previous !== null) {
      build.push(buildMs);
      detect.push(detectMs);
      json.push(jsonMs);
    }
    memory = out.memory;
    findings = out.findings.length;
    flowPartitions = flow.partitions.length;
    previous = current;
  }
  collectGarbage();
  const after = process.memoryUsage();
  return {
    basePartitions: base.flows.find((f) => f.id === flowId)?.partitions.length ?? 0,
    partitions: flowPartitions,
    topics: world.sourceFlowTopics.size,
    cycles,
    buildFlowMs: summarize(build),
    detectorsMs: summarize(detect),
    memoryJsonMs: summarize(json),
    memoryJsonKiB: jsonBytes / 1024,
    findings,
    heapBeforeMiB: toMiB(heapBefore),
    heapAfterMiB: toMiB(after.heapUsed),
    peakHeapMiB: toMiB(peakHeap),
    rssMiB: toMiB(after.rss),
  };
}

function scaleWorld(base: Snapshot, history: CollectorHistory, flowId: string, partitions: number): ScaledWorld {
  const clusters = base.clusters.map((c) => ({ alias: c.alias, topicNames: c.topics.map((t) => t.name) }));
  const def = discoverFlows(base.connect, clusters).find((d) => d.id === flowId);
  const flow = base.flows.find((f) => f.id === flowId);
  const source = base.clusters.find((c) => c.alias === def?.source);
  const target = base.clusters.find((c) => c.alias === def?.target);
  if (!def || !flow || !source || !target || flow.partitions.length === 0) throw new Error(`the captured snapshot has no flow ${flowId} with partitions`);
  const remote = (name: string) => def.policy.formatRemoteTopic(def.source, name);
  const flowTopics = new Set(flow.partitions.map((p) => p.topic));
  const sourceTopics = [...source.topics];
  const targetTopics = [...target.topics];
  const sourceFlowTopics = new Set(flowTopics);
  const targetFlowTopics = new Set([...flowTopics].map(remote));
  const syncs = new Map(history.offsetSyncs as ReadonlyMap<string, OffsetSyncPoint[]>);
  const copies = Math.ceil(partitions / flow.partitions.length);
  const originals = source.topics.filter((t) => flowTopics.has(t.name));
  const targetByName = new Map(target.topics.map((t) => [t.name, t]));
  for (let k = 1; k < copies; k++) {
    for (const topic of originals) {
      const name = `${topic.name}-x${k}`;
      sourceTopics.push(renameTopic(topic, name));
      sourceFlowTopics.add(name);
      const twin = targetByName.get(remote(topic.name));
      if (twin) {
        targetTopics.push(renameTopic(twin, remote(name)));
        targetFlowTopics.add(remote(name));
      }
      for (const p of topic.partitions) {
        const h = history.offsetSyncs.get(flowPartitionKey(flowId, topic.name, p.partition));
        if (h) syncs.set(flowPartitionKey(flowId, name, p.partition), h.slice());
      }
    }
  }
  return { def, base, source: { ...source, topics: sourceTopics }, target: { ...target, topics: targetTopics }, sourceFlowTopics, targetFlowTopics, checkpoints: flow.checkpoints, syncs };
}

function renameTopic(topic: TopicState, name: string): TopicState {
  return { ...topic, name, topicId: randomUUID(), partitions: topic.partitions.map((p) => ({ ...p, topic: name })) };
}

/** The cluster `grow` records later on its flow topics (all partitions, also empty ones). */
function advanceCluster(cluster: ClusterSnapshot, flowTopics: Set<string>, grow: bigint, now: number): ClusterSnapshot {
  return {
    ...cluster,
    dataAt: now,
    topics: cluster.topics.map((t) => (flowTopics.has(t.name) ? { ...t, partitions: t.partitions.map((p) => ({ ...p, logEnd: p.logEnd === null ? null : p.logEnd + grow })) } : t)),
  };
}

/** MM2's positions as Connect would report them: the last replicated offset, `behind` records short of the log end. */
function readPositions(source: ClusterSnapshot, flowTopics: Set<string>): Map<string, bigint> {
  const positions = new Map<string, bigint>();
  for (const t of source.topics) {
    if (!flowTopics.has(t.name)) continue;
    for (const p of t.partitions) if (p.logEnd !== null && p.logEnd > behind) positions.set(`${t.name}/${p.partition}`, p.logEnd - behind - 1n);
  }
  return positions;
}
