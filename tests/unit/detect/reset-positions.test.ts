import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlowPartition, makeSnapshot, runCycles, T0 } from "./fixtures";

// The bench's topic reset (2026-12-02, latency-reset-2 and -3): a replicated 2-partition topic with 100 records each,
// deleted and recreated with 10 each. MM2's committed position (Connect's offsets) stays 100 until MM2 commits on the
// new topic, then reads 10.
const replicated = makeFlowPartition({ sourceLogEnd: 100n, mm2Position: 100n, committedPosition: 100n, targetLogEnd: 100n, latestSync: { upstream: 99n, downstream: 99n } });
const recreated = (committed: bigint, mm2Position: bigint) =>
  makeFlowPartition({ sourceTopicId: "id-2", sourceLogEnd: 10n, mm2Position, committedPosition: committed, targetLogEnd: 100n + mm2Position, latestSync: { upstream: 99n, downstream: 99n } });
const unread = { reason: "east ListOffsets: LEADER_NOT_AVAILABLE", dataAt: null };

const movesOf = (outputs: ReturnType<typeof runCycles>) => outputs.map((o) => findingsOf(o, FindingType.MM2_POSITION_MOVED).map((f) => `${f.evidence.direction} ${f.evidence.previousPosition}→${f.evidence.newPosition}`));
const resetsOf = (outputs: ReturnType<typeof runCycles>) => outputs.map((o) => findingsOf(o, FindingType.TOPIC_RESET).map((f) => `${f.evidence.oldTopicId}→${f.evidence.newTopicId} ${f.evidence.comparedWith}`));

describe("a topic reset, seen by TOPIC_RESET and MM2_POSITION_MOVED", () => {
  it("is one TOPIC_RESET, not a position moved back by hand, while Connect still holds the old topic's position", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [replicated] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [recreated(100n, 100n)] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [recreated(100n, 100n)] }) },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [recreated(10n, 10n)] }) },
      { snapshot: makeSnapshot({ cycle: 5, partitions: [recreated(10n, 10n)] }) },
    ]);
    expect(resetsOf(outputs)).toEqual([[], ["id-1→id-2 previous-cycle"], ["id-1→id-2 previous-cycle"], ["id-1→id-2 previous-cycle"], ["id-1→id-2 previous-cycle"]]);
    expect(movesOf(outputs)).toEqual([[], [], [], [], []]);
  });

  it("still reports a move back by hand on the new topic once MM2 committed on it", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [replicated] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [recreated(100n, 100n)] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [recreated(10n, 10n)] }) },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [recreated(4n, 10n)] }) },
    ]);
    expect(movesOf(outputs)).toEqual([[], [], [], ["back 10→4"]]);
    expect(findingsOf(outputs[3], FindingType.MM2_POSITION_MOVED)[0]?.evidence).toMatchObject({ firstAffectedOffset: "4", lastAffectedOffset: "9", affectedCount: "6" });
  });

  it("is reported when the cycle between the old topic and the new one could not read the partition", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [replicated] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...recreated(100n, 100n), sourceLogEnd: null, unknown: unread }] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [recreated(100n, 100n)] }) },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [recreated(10n, 10n)] }) },
    ]);
    expect(resetsOf(outputs)).toEqual([[], [], ["id-1→id-2 last-known"], ["id-1→id-2 last-known"]]);
    expect(findingsOf(outputs[2], FindingType.TOPIC_RESET)[0]).toMatchObject({
      key: "TOPIC_RESET|east->west|orders|2|id-2",
      summary: "orders/2 at east was reset (topic ID changed): MM2 copies 10 already-passed offsets again",
    });
    expect(findingsOf(outputs[2], FindingType.TOPIC_RESET)[0]?.evidence).toMatchObject({
      detectedBy: "topic-id-changed",
      previousLogEnd: null,
      currentLogEnd: "10",
      previousMm2Position: "100",
      recordsToRecopy: "10",
      previousLag: null,
    });
    expect(movesOf(outputs)).toEqual([[], [], [], []]);
  });

  it("is reported when a cycle read the topic gone and MM2 had committed on the new topic by the next", () => {
    // The bench at load 13 (latency-reset-0): the partitions left the flow for a cycle, which forgot their marks.
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [replicated] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [recreated(10n, 10n)] }) },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [recreated(10n, 10n)] }) },
      // MM2 copies on: no move read from the new mark (whose replaced position was the new topic's own).
      { snapshot: makeSnapshot({ cycle: 5, partitions: [{ ...recreated(15n, 15n), sourceLogEnd: 20n }] }) },
      { snapshot: makeSnapshot({ cycle: 6, partitions: [{ ...recreated(15n, 15n), sourceLogEnd: 20n }] }) },
      { snapshot: makeSnapshot({ cycle: 7, partitions: [{ ...recreated(20n, 20n), sourceLogEnd: 20n }] }) },
    ]);
    expect(outputs[1]!.memory.committed["east->west|orders|2"]).toEqual({ committed: "100", highest: "100", topicId: "id-1", goneSince: T0 + 10_000 });
    expect(resetsOf(outputs).slice(0, 4)).toEqual([[], [], ["id-1→id-2 last-known"], ["id-1→id-2 last-known"]]);
    expect(findingsOf(outputs[2], FindingType.TOPIC_RESET)[0]?.evidence).toMatchObject({
      detectedBy: "topic-id-changed",
      oldTopicId: "id-1",
      newTopicId: "id-2",
      previousMm2Position: "100",
      currentLogEnd: "10",
      recordsToRecopy: "10",
    });
    expect(movesOf(outputs)).toEqual([[], [], [], [], [], [], []]);
    // Back in the flow: the mark is the new topic's, no longer gone.
    expect(outputs[2]!.memory.committed["east->west|orders|2"]).toEqual({ committed: "0", highest: "0", topicId: "id-2", replacedCommitted: "10" });
  });

  it("forgets a gone partition's mark after a day: a topic recreated later is not judged against it", () => {
    const day = 24 * 3_600_000;
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [replicated] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [] }), now: T0 + 10_000 + day - 1 },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [] }), now: T0 + 10_000 + day },
      { snapshot: makeSnapshot({ cycle: 5, partitions: [recreated(10n, 10n)] }), now: T0 + 20_000 + day },
    ]);
    expect(outputs.map((o) => Object.keys(o.memory.committed).length)).toEqual([1, 1, 1, 0, 1]);
    expect(resetsOf(outputs)).toEqual([[], [], [], [], []]);
  });

  it("stays quiet while the topic ID is the same or not known", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [replicated] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...replicated, unknown: unread }] }) },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [{ ...replicated, sourceTopicId: null, sourceLogEnd: 110n }] }) },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [{ ...replicated, sourceLogEnd: 120n, mm2Position: 110n, committedPosition: 110n, targetLogEnd: 110n }] }) },
    ]);
    expect(resetsOf(outputs)).toEqual([[], [], [], []]);
    expect(movesOf(outputs)).toEqual([[], [], [], []]);
  });
});
