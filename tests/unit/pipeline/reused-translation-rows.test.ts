import { afterEach, describe, expect, it, vi } from "vitest";
import { type CheckpointPoint, type ClusterSnapshot, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";
import { FlowTranslator, listTranslationSamples } from "@/lib/pipeline/flow-translator";
import { type FlowTranslation, readGroupRows, type RowSample, translateSnapshotFlow } from "@/lib/translation";
import { FlowRowsState } from "@/lib/translation/flow-rows";
import type { TranslationRows } from "@/lib/translation/translation-rows";
import { FLOW, makeFlow, makeFlowPartition, makeGroup, readSampleColumns, T0 } from "../translation/fixtures";
import { createRandom } from "../seeded-random";

/**
 * FlowTranslator reuses a flow's row columns two cycles later (FlowRowsState.takeRows). Over random cycles whose groups
 * grow, shrink and change partitions (so the columns are reused, or too small or too large and made anew), and whose
 * rows switch between numbers and objects (a partition the flow does not replicate), each cycle's translation must be
 * the one a translation from scratch gives, and the last cycle's must still read as it did once the next is made.
 */
const cycles = 40;
const stepMs = 5_000;
const topics = ["orders", "payments"];
const flowParts = topics.flatMap((topic) => [0, 1, 2, 3, 4, 5].map((partition) => ({ topic, partition })));

function makeSourceCluster(groups: ClusterSnapshot["groups"], now: number): ClusterSnapshot {
  return {
    alias: "east", bootstrap: ["east:9092"], reachable: true, error: null, dataAt: now, stale: false,
    brokers: [], controllerId: 1, topics: [], groups, uncleanLeaderElectionDefault: false,
  };
}

/** Group partitions per cycle: steady, then few (columns too large), then many (too small), then steady again. */
function countGroupPartitions(c: number): number {
  if (c <= 12) return 4;
  if (c <= 18) return 1;
  if (c <= 26) return 8;
  return 5;
}

/** The world of seed `seed`: `advance(c)` gives cycle c's snapshot; the sync history grows in place. */
function createWorld(seed: number) {
  const random = createRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const history = new Map<string, SyncPoint[]>();
  const positions = new Map<string, bigint>();
  for (const { topic, partition } of flowParts) {
    const key = flowPartitionKey(FLOW, topic, partition);
    history.set(key, [{ upstream: 0n, downstream: 3n }]);
    positions.set(key, 0n);
  }
  const checkpoints = new Map<string, CheckpointPoint>();
  const groupIds = ["app", "billing", "audit", "reports", "search"];
  const advance = (c: number): Snapshot => {
    const now = T0 + c * stepMs;
    for (const { topic, partition } of flowParts) {
      const key = flowPartitionKey(FLOW, topic, partition);
      const position = positions.get(key)! + BigInt(1 + pick(40));
      positions.set(key, position);
      // A gap now and then on the target: the ideal position becomes a bracket.
      if (random() < 0.3) history.get(key)!.push({ upstream: position, downstream: position + 3n + BigInt(pick(3)) });
    }
    const groups = groupIds.slice(0, 3 + (c % 3)).map((group) => {
      const offsets: Record<string, bigint> = {};
      const count = countGroupPartitions(c) + pick(2);
      for (let i = 0; i < count; i++) {
        const { topic, partition } = flowParts[pick(flowParts.length)]!;
        const position = positions.get(flowPartitionKey(FLOW, topic, partition))!;
        const offset = position - BigInt(pick(60));
        offsets[`${topic}/${partition}`] = offset < 0n ? 0n : offset;
        if (random() < 0.25) {
          const point = { group, topic, partition, upstream: offset + BigInt(pick(5)), downstream: offset + 3n, at: now - pick(3) * 1_000 };
          checkpoints.set(`${group}|${topic}|${partition}`, point);
        }
      }
      // A partition the flow does not replicate: a row held as an object, at a row another cycle holds numbers in.
      if (random() < 0.4) offsets[`audit-log/${pick(3)}`] = BigInt(pick(100));
      if (random() < 0.2) offsets[`orders/${pick(6)}`] = -1n;
      return makeGroup(group, offsets, { dataAt: now - 1_000 });
    });
    const partitions = flowParts.map(({ topic, partition }) => {
      const logEnd = positions.get(flowPartitionKey(FLOW, topic, partition))! + BigInt(pick(30));
      return makeFlowPartition({ topic, partition, sourceLogEnd: logEnd });
    });
    const flow = makeFlow({ partitions, checkpoints: [...checkpoints.values()] });
    return { cycle: c, takenAt: now, durationMs: 1, connect: [], malformedRecords: {}, clusters: [makeSourceCluster(groups, now)], flows: [flow] };
  };
  return { history, advance };
}

/** What the detectors and the store read of a translation's rows, through the columns (no row made). */
function readColumns(ft: FlowTranslation) {
  const groups = ft.groups.map((g) => {
    const rows = readGroupRows(g);
    const each = Array.from({ length: rows.length }, (_, i) => ({
      topic: rows.topic(i),
      partition: rows.partition(i),
      checkpoint: rows.checkpoint(i),
      owed: rows.isCheckpointOwed(i),
      skipping: rows.isSkipping(i),
      upstream: rows.checkpointUpstream(i),
      downstream: rows.checkpointDownstream(i),
      readAt: rows.checkpointReadAt(i),
      sample: rows.sample(i, g.group),
    }));
    return { group: g.group, totals: g.totals, hasCheckpoint: rows.hasCheckpoint(), each };
  });
  const samples: RowSample[] = readSampleColumns(listTranslationSamples(ft));
  return { groups, samples, totals: ft.totals };
}

describe("the row columns FlowTranslator reuses two cycles later", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([1, 2, 3])("give, cycle after cycle, the translation from scratch, and leave the last cycle's intact (seed %i)", (seed) => {
    const taken: TranslationRows[] = [];
    const takeRows = FlowRowsState.prototype.takeRows;
    vi.spyOn(FlowRowsState.prototype, "takeRows").mockImplementation(function (this: FlowRowsState, ...args) {
      const rows = takeRows.apply(this, args);
      if (args[2]) taken.push(rows);
      return rows;
    });
    const world = createWorld(seed);
    const translator = new FlowTranslator();
    let last: { translation: FlowTranslation; expected: ReturnType<typeof readColumns> } | null = null;
    for (let c = 1; c <= cycles; c++) {
      const snapshot = world.advance(c);
      const translation = translator.translateCycle(snapshot, { offsetSyncs: world.history }).get(FLOW)!;
      // The cycle before, published until now, reads as it did when it was made.
      if (last !== null) expect(readColumns(last.translation)).toEqual(last.expected);
      const scratch = translateSnapshotFlow(snapshot, snapshot.flows[0]!, world.history, snapshot.takenAt);
      const expected = readColumns(scratch);
      expect(readColumns(translation)).toEqual(expected);
      expect(translation).toEqual(scratch);
      last = { translation, expected };
    }
    // FlowTranslator's translations were made in the columns of two cycles before, except where they did not fit.
    const reused = taken.filter((rows, i) => i >= 2 && rows === taken[i - 2]).length;
    expect(taken).toHaveLength(cycles);
    expect(reused).toBeGreaterThan(cycles / 2);
    expect(reused).toBeLessThan(cycles - 2);
  });
});
