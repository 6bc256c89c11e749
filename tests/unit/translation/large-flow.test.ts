/**
 * 5,000 flow partitions (1,000 topics × 5) and 1,002 groups: the indexed translation must give the
 * same rows, totals and findings as for a small flow, for every group.
 */
import { describe, expect, it } from "vitest";
import type { CheckpointPoint, ConsumerGroupState } from "@/lib/collector/types";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { translateFlow } from "@/lib/translation";
import { detectTranslationErrors } from "@/lib/detect/translation-detectors";
import { FLOW, makeCheckpoint, makeFlow, makeFlowPartition, makeGroup, steadySyncs, T0 } from "./fixtures";
import { flowPartitionKey } from "@/lib/collector/types";
import type { SyncPoint } from "@/lib/mm2";

const topicName = (t: number) => `t${String(t).padStart(4, "0")}`;
const PARTITIONS = [0, 1, 2, 3, 4];

/**
 * Every partition copied one to one, a sync every 1,000 offsets up to 9,000, log end 10,000. Group
 * g<t> commits 9,950 on topic t<t> and MM2 checkpointed exactly that (9,950 → 9,001), except:
 * g0500's checkpoints are of 9,000 and 200 s old (MM2 owes newer ones); `replayer` commits 9,950 on
 * t0100 with checkpoints of 1,000; `skipper` committed 5,000 on t0007/2 below its checkpoint 6,000
 * (a rewind: a failover would skip 1,000 records, and MM2 owes a checkpoint of the rewound offset).
 */
function makeLargeFlow(now: number) {
  const partitions = [];
  const history = new Map<string, SyncPoint[]>();
  const groups: ConsumerGroupState[] = [];
  const checkpoints: CheckpointPoint[] = [];
  for (let t = 0; t < 1_000; t++) {
    const topic = topicName(t);
    const group = `g${String(t).padStart(4, "0")}`;
    for (const p of PARTITIONS) {
      partitions.push(makeFlowPartition({ topic, partition: p }));
      history.set(flowPartitionKey(FLOW, topic, p), steadySyncs(1_000, 9_000));
      checkpoints.push(group === "g0500" ? makeCheckpoint(group, topic, p, 9_000n, 9_000n, 200_000 + now - T0) : makeCheckpoint(group, topic, p, 9_950n, 9_001n));
    }
    groups.push(makeGroup(group, Object.fromEntries(PARTITIONS.map((p) => [`${topic}/${p}`, 9_950n]))));
  }
  groups.push(makeGroup("replayer", Object.fromEntries(PARTITIONS.map((p) => [`t0100/${p}`, 9_950n]))));
  for (const p of PARTITIONS) checkpoints.push(makeCheckpoint("replayer", "t0100", p, 1_000n, 1_000n));
  groups.push(makeGroup("skipper", { "t0007/2": 5_000n }));
  checkpoints.push(makeCheckpoint("skipper", "t0007", 2, 6_000n, 6_000n));
  return translateFlow({ flow: makeFlow({ partitions, checkpoints }), sourceGroups: groups.reverse(), syncHistory: history, now });
}

describe("translateFlow at 5,000 partitions", () => {
  // A correctness test at size, not a timed one (npm run bench measures speed): 7.5–9.7 s seen under load, above
  // vitest's 5 s default.
  it("translates every group and finds exactly the skipping, the replaying and the owed checkpoints", { timeout: 30_000 }, () => {
    const ft = makeLargeFlow(T0);
    expect(ft.groups.map((g) => g.group).slice(-3)).toEqual(["g0999", "replayer", "skipper"]);
    expect(ft.totals).toEqual({
      groups: 1_002,
      partitions: 5_006,
      translated: 5_006,
      untranslatable: 0,
      // 5,005 rows at 9,950: ideal bracket 9,001–9,950 beyond the newest sync, MM2's 9,001: 949 each;
      // skipper at 5,000 (a sync, exact): MM2's store no longer holds that sync and gives 4,001.
      rereadRecords: 949n * 5_005n + 999n,
      // The checkpoint's: 949 for g<t> (5,000 rows, g0500's from 9,000: 950), 8,950 for replayer, none for skipper.
      failoverReplayRecords: 949n * 4_995n + 950n * 5n + 8_950n * 5n,
      skippingPartitions: 1,
      groupLag: 50n * 5_005n + 5_000n,
      oldestCheckpointAgeMs: 200_000,
    });
    const row = ft.groups.find((g) => g.group === "g0042")!.partitions[3]!;
    expect([row.topic, row.partition, row.translation, row.ideal, row.reread, row.failoverReread]).toEqual([
      "t0042",
      3,
      { kind: "translated", downstream: 9_001n, syncUpstream: 9_000n, syncDownstream: 9_000n },
      { kind: "bracket", low: 9_001n, high: 9_950n, reason: "beyond-newest-sync" },
      { min: 0n, max: 949n, records: 949n, skip: "none" },
      { min: 0n, max: 949n, records: 949n, skip: "none" },
    ]);
    expect(detectTranslationErrors(ft, T0).map((f) => [f.key, f.severity, f.evidence.failoverReplayRecords, f.evidence.skippedRecords])).toEqual([
      ["TRANSLATION_ERROR|east->west|replayer", "warning", "44750", "0"],
      ["TRANSLATION_ERROR|east->west|skipper", "critical", "0", "1000"],
    ]);

    const watch = new CheckpointWatchState();
    expect(watch.judge(ft, T0)).toEqual([]);
    // Owed: g0500's and replayer's newer checkpoints, and one for skipper's rewind (committed below it).
    expect([...watch.entries()]).toHaveLength(11);
    const later = T0 + 181_000;
    const stale = watch.judge(makeLargeFlow(later), later);
    expect(stale.map((f) => f.key)).toEqual([
      ...PARTITIONS.map((p) => `CHECKPOINT_STALE|east->west|g0500|t0500|${p}`),
      ...PARTITIONS.map((p) => `CHECKPOINT_STALE|east->west|replayer|t0100|${p}`),
      "CHECKPOINT_STALE|east->west|skipper|t0007|2",
    ]);
  });
});
