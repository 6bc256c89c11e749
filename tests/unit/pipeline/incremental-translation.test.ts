import { describe, expect, it } from "vitest";
import { type CheckpointPoint, type ClusterSnapshot, flowPartitionKey, type Snapshot } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { loadDetectorMemoryEntries } from "@/lib/detect/memory-persistence";
import type { Finding } from "@/lib/detect/types";
import type { SyncPoint } from "@/lib/mm2";
import { FlowTranslator } from "@/lib/pipeline/flow-translator";
import type { Store } from "@/lib/store";
import { createTranslationFindingSource } from "./translation-finding-source";
import { createTempSqliteStores } from "./temp-sqlite-stores";
import { type FlowTranslation, translateSnapshotFlow } from "@/lib/translation";
import { FLOW, makeFlow, makeFlowPartition, makeGroup, T0 } from "../translation/fixtures";

/**
 * A flow of 6 partitions over 16 cycles 30 s apart, as the collector hands them over: sync histories growing in
 * place (and once trimmed at the front, once replaced by a rewound one), commits moving (one standing still),
 * checkpoints replaced in a list of the same order (once reordered, once with a partition listed twice, new
 * partitions appended), a group leaving, one partition MM2 never checkpoints (CHECKPOINT_STALE).
 */
const cycles = 16;
const stepMs = 30_000;
const parts = [...[0, 1, 2, 3].map((p) => ({ topic: "orders", partition: p })), ...[0, 1].map((p) => ({ topic: "payments", partition: p }))];
const shiftOf = (topic: string) => (topic === "payments" ? 7n : 0n);

function makeSourceCluster(groups: ClusterSnapshot["groups"], now: number): ClusterSnapshot {
  return {
    alias: "east", bootstrap: ["east:9092"], reachable: true, error: null, dataAt: now, stale: false,
    brokers: [], controllerId: 1, topics: [], groups, uncleanLeaderElectionDefault: false,
  };
}

/** MirrorCheckpointTask's translation by the newest sync at or below `upstream` (what a checkpoint carries). */
function translateLikeMirrorMaker(history: readonly SyncPoint[], upstream: bigint): bigint | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const sync = history[i]!;
    if (sync.upstream <= upstream) return sync.upstream === upstream ? sync.downstream : sync.downstream + 1n;
  }
  return null;
}

/** The world: `advance(c)` gives cycle c's snapshot and the collector's history (its arrays mutated in place). */
function createWorld() {
  const history = new Map<string, SyncPoint[]>();
  for (const { topic, partition } of parts) {
    const shift = shiftOf(topic);
    history.set(flowPartitionKey(FLOW, topic, partition), [
      { upstream: 0n, downstream: shift },
      { upstream: 100n, downstream: 100n + shift },
    ]);
  }
  const checkpoints = new Map<string, CheckpointPoint>();
  const advance = (c: number): Snapshot => {
    const now = T0 + (c - 1) * stepMs;
    parts.forEach(({ topic, partition }, i) => {
      const key = flowPartitionKey(FLOW, topic, partition);
      const upstream = BigInt(100 * c);
      if ((c + i) % 3 === 0) history.get(key)!.push({ upstream, downstream: upstream + shiftOf(topic) });
      // The collector trims a long history at its front, in place.
      if (c === 9 && topic === "orders" && partition === 1) history.get(key)!.splice(0, 2);
      // MM2 rewound: the collector's history of the partition starts again.
      if (c === 11 && topic === "payments" && partition === 0) history.set(key, [{ upstream: 50n, downstream: 5_000n }]);
    });
    const committed: Record<string, Record<string, bigint>> = {
      app: { "orders/0": BigInt(100 * c + 5), "orders/1": BigInt(100 * c + 5), "orders/2": BigInt(100 * c + 5), "orders/3": c < 6 ? BigInt(100 * c + 5) : 505n },
      billing: { "payments/0": BigInt(100 * c - 50), "payments/1": BigInt(100 * c - 50), "orders/0": BigInt(100 * c) },
      ...(c <= 7 ? { leaver: { "orders/1": 120n } } : {}),
    };
    let index = 0;
    for (const [group, offsets] of Object.entries(committed)) {
      for (const [tp, offset] of Object.entries(offsets)) {
        const [topic, partition] = tp.split("/") as [string, string];
        // MM2 never checkpoints app on orders/2.
        const skipped = group === "app" && tp === "orders/2";
        if (!skipped && (c + index++) % 4 === 1) {
          const downstream = translateLikeMirrorMaker(history.get(flowPartitionKey(FLOW, topic, Number(partition)))!, offset);
          const point = { group, topic, partition: Number(partition), upstream: offset, downstream: downstream!, at: now - 2_000 };
          if (downstream !== null) checkpoints.set(`${group}|${tp}`, point);
        }
      }
    }
    let list = [...checkpoints.values()];
    if (c === 12) list = list.reverse();
    if (c === 13) list = [...list, { ...list[0]!, upstream: 1n, downstream: 1n }];
    const groups = Object.entries(committed).map(([group, offsets]) => makeGroup(group, offsets, { dataAt: now }));
    const partitions = parts.map(({ topic, partition }) => makeFlowPartition({ topic, partition, sourceLogEnd: BigInt(1_000 + 100 * c) }));
    const flow = makeFlow({ partitions, checkpoints: list });
    return { cycle: c, takenAt: now, durationMs: 1, connect: [], malformedRecords: {}, clusters: [makeSourceCluster(groups, now)], flows: [flow] };
  };
  return { history, advance };
}

const keptStores = createTempSqliteStores("gapwatch-incremental-translation-");
const scratchStores = createTempSqliteStores("gapwatch-scratch-translation-");

/** Every stored memory entry but the cycle's time, sorted. */
/**
 * The stored memory: its rows but the watch's chunk rows (their slots are in the order each writer met the keys), and
 * the watch those hold.
 */
async function listStored(store: Store) {
  const entries = (await store.loadDetectorMemoryEntries()).filter(([key]) => key !== "cycle-at");
  const isChunk = ([key]: [string, string]) => /^watches(-keys)?\|/.test(key);
  const rows = entries.filter((row) => !isChunk(row)).sort(([x], [y]) => x.localeCompare(y));
  return { rows, watch: loadDetectorMemoryEntries(entries.filter(isChunk)).watch };
}

describe("the translation kept between cycles", () => {
  it("gives, cycle after cycle, what a translation from scratch gives; so do its findings, across a restart", async () => {
    const world = createWorld();
    const translator = new FlowTranslator();
    const kept = keptStores.open();
    const scratchKv = scratchStores.open();
    let source = createTranslationFindingSource(kept);
    const scratchSource = createTranslationFindingSource(scratchKv);
    const staleByCycle: string[][] = [];
    let last: FlowTranslation | undefined;
    for (let c = 1; c <= cycles; c++) {
      const snapshot = world.advance(c);
      const translations = translator.translateCycle(snapshot, { offsetSyncs: world.history });
      const scratch = translateSnapshotFlow(snapshot, snapshot.flows[0]!, world.history, snapshot.takenAt);
      expect(translations.get(FLOW)).toEqual(scratch);
      // Gapwatch restarts before cycle 10: the new source reads what the last one stored.
      if (c === 10) source = createTranslationFindingSource(kept);
      const findings = await source(translations, snapshot.takenAt, defaultThresholds);
      const expected = await scratchSource(new Map([[FLOW, scratch]]), snapshot.takenAt, defaultThresholds);
      expect(findings).toEqual(expected);
      // The stored entries are those of the translation from scratch (the watch and findings, across the restart).
      const stored = await listStored(kept);
      expect(Object.keys(stored.watch).length).toBeGreaterThan(0);
      expect(stored).toEqual(await listStored(scratchKv));
      staleByCycle.push(findings.filter((f: Finding) => f.type === "CHECKPOINT_STALE").map((f) => f.key));
      last = scratch;
    }
    // app/orders/2 was never checkpointed (app's other partitions were): owed from cycle 1 (T0), stale once owed for
    // more than 180 s (3 × the 60 s emit interval): from cycle 8 (T0 + 210 s) on.
    expect(staleByCycle.map((keys) => keys.length)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(staleByCycle[15]).toEqual(["CHECKPOINT_STALE|east->west|app|orders|2"]);
    expect(last!.groups.map((g) => g.group)).toEqual(["app", "billing"]);
    expect(last!.totals.partitions).toBe(7);
  });
});
