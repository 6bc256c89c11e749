import { describe, expect, it } from "vitest";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { translateFlow } from "@/lib/translation";
import { detectTranslationErrors } from "@/lib/detect/translation-detectors";
import { listGroupSummaries, requireGroup } from "@/lib/views/groups";
import { FLOW, makeCheckpoint, makeFlow, makeGroup, makeHistory, steadySyncs, T0 } from "./fixtures";

const MINUTE = 60_000;

/**
 * What the collector reads on a Kafka 4 source: a classic group and a KIP-848 consumer group (which MM2
 * checkpoints), a Kafka Streams group (committed offsets, OffsetFetch) and a share group (start offsets,
 * DescribeShareGroupOffsets; no committed offsets), all on the replicated topic `orders`, plus a streams
 * group reading only a topic the flow does not replicate.
 */
const sourceGroups = [
  makeGroup("app", { "orders/0": 9995n }),
  makeGroup("kip848", { "orders/0": 5000n }, { groupType: "consumer" }),
  makeGroup("wordcount", { "orders/0": 5000n, "orders/1": 12_000n }, { protocolType: "streams", groupType: "streams", state: "STABLE", members: 2 }),
  makeGroup("jobs", {}, {
    protocolType: "share",
    groupType: "share",
    state: "EMPTY",
    members: 0,
    shareOffsets: [
      { topic: "orders", partition: 2, startOffset: 40n, leaderEpoch: 3, lag: 0n },
      { topic: "orders", partition: 0, startOffset: 120n, leaderEpoch: 3, lag: 7n },
    ],
  }),
  makeGroup("elsewhere", { "payments-local/0": 4n }, { protocolType: "streams", groupType: "streams" }),
];

function translate(now: number, checkpoints = [makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0)]) {
  return translateFlow({ flow: makeFlow({ checkpoints }), sourceGroups, syncHistory: makeHistory({ 0: steadySyncs(10, 10_000) }), now });
}

describe("groups MM2 does not checkpoint (streams, share)", () => {
  it("are listed with where they stand at the source and why, never translated", () => {
    const ft = translate(T0);
    expect(ft.groups.map((g) => [g.group, g.groupType])).toEqual([
      ["app", "classic"],
      ["kip848", "consumer"],
    ]);
    expect(ft.totals.groups).toBe(2);
    expect(ft.excludedGroups).toEqual([]);
    expect(ft.uncheckpointedGroups).toEqual([
      {
        group: "jobs",
        groupType: "share",
        state: "EMPTY",
        members: 0,
        unknown: null,
        note: "MM2 does not checkpoint this group (a share group, KIP-932): after failover it restarts from its reset policy (the group config share.auto.offset.reset, default latest) on the target.",
        partitions: [
          { topic: "orders", partition: 0, targetTopic: "east.orders", kind: "share-start", offset: 120n, sourceLogEnd: 10_000n, lag: 7n },
          { topic: "orders", partition: 2, targetTopic: "east.orders", kind: "share-start", offset: 40n, sourceLogEnd: 10_000n, lag: 0n },
        ],
      },
      {
        group: "wordcount",
        groupType: "streams",
        state: "STABLE",
        members: 2,
        unknown: null,
        note: "MM2 does not checkpoint this group (a Kafka Streams group, KIP-1071): after failover it restarts from its reset policy (auto.offset.reset) on the target.",
        partitions: [
          { topic: "orders", partition: 0, targetTopic: "east.orders", kind: "committed", offset: 5000n, sourceLogEnd: 10_000n, lag: 5000n },
          // Committed past the log end Gapwatch read (a later read): lag 0, never negative.
          { topic: "orders", partition: 1, targetTopic: "east.orders", kind: "committed", offset: 12_000n, sourceLogEnd: 10_000n, lag: 0n },
        ],
      },
    ]);
  });

  it("marks an uncheckpointed group whose offsets could not be read this cycle as unknown", () => {
    const stale = makeGroup("wordcount", { "orders/0": 5000n }, { groupType: "streams", error: "OffsetFetch: coordinator 1: timed out", dataAt: T0 - 30_000 });
    const ft = translateFlow({ flow: makeFlow(), sourceGroups: [stale], syncHistory: new Map(), now: T0 });
    expect(ft.uncheckpointedGroups.map((g) => g.unknown)).toEqual(["OffsetFetch: coordinator 1: timed out (last read 30 s ago)"]);
  });

  it("raise neither CHECKPOINT_STALE nor TRANSLATION_ERROR, where a classic group in the same state does", () => {
    const limits = { replayRecords: 1000, checkpointStaleMs: 5 * MINUTE };
    // "app" is owed a newer checkpoint than 9000 for 60 minutes; "kip848" and the streams group (both at
    // 5000, never checkpointed) would replay 1159 records with MM2's translation (detectors.test.ts).
    const watch = new CheckpointWatchState();
    expect(watch.judge(translate(T0), T0, limits)).toEqual([]);
    const later = T0 + 60 * MINUTE;
    const stale = watch.judge(translate(later), later, limits);
    expect(stale.map((f) => f.group)).toEqual(["app", "kip848"]);
    expect(detectTranslationErrors(translate(later), later, limits).map((f) => f.group)).toEqual(["kip848"]);
  });

  it("are served by the groups API with their type, and a group's own URL says MM2 does not checkpoint it", () => {
    const ft = translate(T0);
    const summary = listGroupSummaries(ft);
    expect(summary.groups.map((g) => [g.group, g.groupType])).toEqual([
      ["app", "classic"],
      ["kip848", "consumer"],
    ]);
    expect(summary.uncheckpointedGroups.map((g) => [g.group, g.groupType, g.partitions.length])).toEqual([
      ["jobs", "share", 2],
      ["wordcount", "streams", 2],
    ]);
    expect(() => requireGroup(ft, "wordcount")).toThrow(
      `no checkpointed consumer group "wordcount" on flow ${FLOW} ("wordcount" is a streams group: MM2 does not checkpoint this group (a Kafka Streams group, KIP-1071)`,
    );
  });
});
