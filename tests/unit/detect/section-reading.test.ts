import { describe, expect, it } from "vitest";
import { flowPartitionKey, type CollectorHistory, type FlowPartition, type OffsetSyncPoint, type Snapshot, type TopicConfigs } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { createDetectorMemory } from "@/lib/detect/memory";
import { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange } from "@/lib/detect/memory-persistence";
import { detectPostureRisks } from "@/lib/detect/posture-risks";
import { runDetectors } from "@/lib/detect/engine";
import { readSectionChanges } from "@/lib/detect/section-changes";
import type { DetectorMemory, Finding } from "@/lib/detect/types";
import { FLOW, makeCluster, makeConnect, makeConnector, makeFlow, makeFlowPartition, makeStaleCluster, makeTask, makeTopic, makeTopicConfigs, T0 } from "./fixtures";

const cycles = 12;
const cycleMs = 30_000;

/**
 * Eight partitions of `orders` over 12 cycles, 30 s apart: p0 copies steadily; p1 stands still until cycle 8
 * (TASK_STALLED); p2's committed position is moved back by hand in cycle 6; p3's topic is recreated in cycle 7;
 * p4 leaves the flow in cycles 4–7; p5 joins in cycle 3 and its offset syncs skip 30 offsets in cycle 6; p6 is
 * unknown in cycles 5–6 and loses records from cycle 8 (DATA_LOSS); p7 is listed twice in cycle 9. The connector is
 * paused in cycle 10, east is unreachable in cycle 11, and the target topic's retention is shortened in cycle 8.
 * Gapwatch restarts before cycle 4.
 */
function makePartition(i: number, c: number): FlowPartition {
  const end = BigInt(1000 + 100 * c);
  const base = { partition: i, sourceLogEnd: end, mm2Position: end, committedPosition: end - 50n, targetLogEnd: end, latestSync: { upstream: end - 1n, downstream: end - 1n } };
  if (i === 1) {
    const position = c < 8 ? 100n : end - 800n;
    return makeFlowPartition({ ...base, sourceLogEnd: end - 800n, mm2Position: position, committedPosition: position, targetLogEnd: position });
  }
  if (i === 2 && c === 6) return makeFlowPartition({ ...base, committedPosition: 500n });
  if (i === 3 && c >= 7) {
    const start = BigInt(50 * (c - 6));
    return makeFlowPartition({ ...base, sourceTopicId: "id-new", sourceLogEnd: start, mm2Position: start, committedPosition: start, targetLogEnd: start });
  }
  if (i === 6 && (c === 5 || c === 6)) return makeFlowPartition({ ...base, unknown: { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: T0 } });
  if (i === 6 && c >= 8) return makeFlowPartition({ ...base, sourceLogStart: end - 5n, mm2Position: end - 20n, committedPosition: end - 20n });
  return makeFlowPartition(base);
}

function listPartitions(c: number): FlowPartition[] {
  const present = [0, 1, 2, 3, 4, 5, 6, 7].filter((i) => !(i === 4 && c >= 4 && c <= 7) && !(i === 5 && c < 3));
  const partitions = present.map((i) => makePartition(i, c));
  return c === 9 ? [...partitions, makePartition(7, c)] : partitions;
}

/** The syncs a partition's history gains in cycle `c`: p5's of cycle 6 skip 30 offsets the source still holds. */
function listNewSyncs(i: number, c: number): OffsetSyncPoint[] {
  const end = BigInt(1000 + 100 * c);
  if (i === 1) return c < 8 ? [] : [{ upstream: end - 801n, downstream: end - 801n }];
  if (i === 5 && c === 6) return [{ upstream: end - 40n, downstream: end - 40n }, { upstream: end - 9n, downstream: end - 39n }];
  if (i === 5 && c > 6) return [{ upstream: end - 1n, downstream: end - 31n }];
  return [{ upstream: end - 1n, downstream: end - 1n }];
}

/**
 * One run of the scenario. `shared`: the world as the collector gives it (the same configs objects while they do not
 * change, sync histories grown in place); otherwise every cycle is made afresh.
 */
function createWorld(shared: boolean) {
  const sourceConfigs = makeTopicConfigs({ minInsyncReplicas: 2 });
  const targetConfigs = makeTopicConfigs({ minInsyncReplicas: 2 });
  const shorterConfigs = makeTopicConfigs({ minInsyncReplicas: 2, retentionMs: 86_400_000n });
  const histories = new Map<string, OffsetSyncPoint[]>();
  return (c: number): { snapshot: Snapshot; history: CollectorHistory } => {
    const partitions = listPartitions(c);
    const copy = (configs: TopicConfigs) => (shared ? configs : { ...configs });
    const layout = [0, 1, 2, 3, 4, 5, 6, 7].map((partition) => ({ partition, logEnd: BigInt(1000 + 100 * c) }));
    const east = { topics: [makeTopic("orders", layout, { topicId: "id-1", configs: copy(sourceConfigs) })] };
    const west = { topics: [makeTopic("east.orders", layout, { configs: copy(c >= 8 ? shorterConfigs : targetConfigs) })] };
    const connector = c === 10 ? makeConnector({ state: "PAUSED", tasks: [makeTask(0, { state: "PAUSED" })] }) : makeConnector();
    // Cycle 9 lists p7 twice: its syncs are added once.
    for (const i of new Set(partitions.map((p) => p.partition))) {
      const key = flowPartitionKey(FLOW, "orders", i);
      const syncs = histories.get(key) ?? [];
      histories.set(key, syncs);
      syncs.push(...listNewSyncs(i, c));
    }
    const offsetSyncs = shared ? histories : new Map([...histories].map(([key, syncs]) => [key, syncs.map((s) => ({ ...s }))]));
    const snapshot: Snapshot = {
      cycle: c,
      takenAt: T0 + c * cycleMs,
      durationMs: 250,
      clusters: [c === 11 ? makeStaleCluster("east", east) : makeCluster("east", east), makeCluster("west", west)],
      connect: [makeConnect([connector])],
      flows: [makeFlow({ partitions })],
      malformedRecords: {},
    };
    return { snapshot, history: { offsetSyncs } };
  };
}

interface CycleResult {
  findings: Finding[];
  risks: Finding[];
  memory: DetectorMemory;
  /** The cycle's stored changes, committed marks as the marks written (listCommittedWrites). */
  changes: MemoryEntryChange[];
}

/** Gapwatch restarts before this cycle: memory and persister from the stored entries, no previous snapshot. */
const restartAt = 4;

/**
 * `fresh`: the memory goes into each cycle as a deep copy, with the world made afresh: nothing is found by identity
 * or position (sections read key by key, walked whole by the persister; offsets parsed again; settings compared
 * again), as before the sections kept their order and changed entries. Returns the cycles and the stored entries
 * the restart read.
 */
function runScenario(fresh: boolean): { results: CycleResult[]; restoredFrom: [string, string][] } {
  const world = createWorld(!fresh);
  const store = new Map<string, string>();
  let persister = createMemoryPersister();
  let restoredFrom: [string, string][] = [];
  const results: CycleResult[] = [];
  let memory = createDetectorMemory();
  let previous: Snapshot | null = null;
  for (let c = 1; c <= cycles; c++) {
    if (c === restartAt) {
      restoredFrom = [...store].sort(([a], [b]) => a.localeCompare(b));
      const loaded = loadDetectorMemoryEntries(store);
      expect(loaded.error).toBeNull();
      memory = loaded.memory;
      persister = createMemoryPersister(store);
      previous = null;
    }
    const { snapshot, history } = world(c);
    const now = snapshot.takenAt;
    const output = runDetectors({ previous, current: snapshot, history, memory: fresh ? copyMemory(memory) : memory, now, thresholds: defaultThresholds });
    memory = output.memory;
    const changes = persister.listChanges(fresh ? copyMemory(memory) : memory, now);
    const storedBefore = loadDetectorMemoryEntries(store).memory.committed;
    for (const { key, value } of changes) {
      if (value === null) store.delete(key);
      else store.set(key, value);
    }
    const marks = listCommittedWrites(storedBefore, loadDetectorMemoryEntries(store).memory.committed);
    const rows = changes.filter((c) => !c.key.startsWith("committed-marks"));
    results.push({ findings: output.findings, risks: detectPostureRisks(snapshot, now), memory, changes: [...rows, ...marks] });
    previous = snapshot;
  }
  return { results, restoredFrom };
}

/** A deep copy of plain objects: the per-partition sections are views over columns (mark-columns.ts), copied key by key first. */
function copyMemory(memory: DetectorMemory): DetectorMemory {
  return structuredClone({ ...memory, positions: { ...memory.positions }, syncMarkers: { ...memory.syncMarkers }, committed: { ...memory.committed } });
}

/**
 * The committed marks whose stored form a cycle changed, as the JSON rows the versions before wrote (`committed|<key>`):
 * they are stored in chunk rows of numbers, which hold every mark of the chunk.
 */
function listCommittedWrites(before: DetectorMemory["committed"], after: DetectorMemory["committed"]): MemoryEntryChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const json = (mark: DetectorMemory["committed"][string] | undefined) => (mark === undefined ? null : JSON.stringify(mark));
  return keys.filter((k) => json(before[k]) !== json(after[k])).map((k) => ({ key: `committed|${k}`, value: json(after[k]) }));
}

/** Changes in `a` and not in `b` (same key and value), as `key value`. */
function listMissing(a: readonly MemoryEntryChange[], b: readonly MemoryEntryChange[]): string[] {
  const inB = new Set(b.map((c) => `${c.key} ${c.value}`));
  return a.map((c) => `${c.key} ${c.value}`).filter((c) => !inB.has(c));
}

describe("detector sections read in order and listed from their changes", () => {
  it("finds, remembers and persists what reading and walking every section key by key does, cycle after cycle", () => {
    const { results: kept, restoredFrom } = runScenario(false);
    const { results: fresh, restoredFrom: freshRestoredFrom } = runScenario(true);
    expect(restoredFrom).toEqual(freshRestoredFrom);
    expect(restoredFrom.map(([key]) => key)).toContain("stall|east->west|orders|1");
    for (let c = 0; c < cycles; c++) {
      expect(kept[c]!.findings, `cycle ${c + 1} findings`).toEqual(fresh[c]!.findings);
      expect(kept[c]!.risks, `cycle ${c + 1} risks`).toEqual(fresh[c]!.risks);
      expect(kept[c]!.memory, `cycle ${c + 1} memory`).toEqual(fresh[c]!.memory);
    }
    // Walking, a committed mark kept as it was (every mark in cycle 11, with east unreachable) is written once its
    // last routine advance is a minute old; listed from the detector's changes it is written with its next change
    // (cycle 12), as before this test: a mark stored at most a minute behind either way.
    const mark = (p: number, committed: number, highest: number, topicId = "id-1") =>
      `committed|east->west|orders|${p} ${JSON.stringify({ committed: String(committed), highest: String(highest), topicId })}`;
    const expected = kept.map((): string[][] => [[], []]);
    expected[10] = [[], [mark(3, 200, 200, "id-new"), mark(6, 1980, 1980)]];
    expected[11] = [[mark(3, 300, 300, "id-new"), mark(6, 2180, 2180)], []];
    expect(kept.map((r, c) => [listMissing(r.changes, fresh[c]!.changes), listMissing(fresh[c]!.changes, r.changes)])).toEqual(expected);
    // The scenario reaches every path it is about.
    const keys = new Set(kept.flatMap((r) => [...r.findings, ...r.risks].map((f) => f.key)));
    expect([...keys].sort()).toEqual([
      "DATA_LOSS|east->west|orders|6|1780",
      "DATA_LOSS|east->west|orders|6|1880",
      "DATA_LOSS|east->west|orders|6|1980",
      "MM2_POSITION_MOVED|east->west|orders|2|back-500",
      "MM2_POSITION_MOVED|east->west|orders|5|forward-1561",
      "TARGET_RETENTION_SHORTER|east->west|orders",
      "TARGET_TRUNCATED|east->west|east.orders|3|50",
      "TASK_STALLED|east->west",
      "TOPIC_RESET|east->west|orders|3|id-new",
    ]);
    expect(readSectionChanges(kept[8]!.memory.committed)?.repeated).toBe(true);
    expect(readSectionChanges(kept[9]!.memory.committed)?.repeated).toBe(false);
  });
});
