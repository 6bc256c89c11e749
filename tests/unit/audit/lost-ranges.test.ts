import { describe, expect, it } from "vitest";
import { type AlertRef, type AuditSample, confirmLostRanges, listLostRanges, type LostRangeContext } from "@/lib/audit";
import type { SyncPoint } from "@/lib/mm2";

const FLOW = "east->west";
const KEY = "east->west|orders|2";
const syncs = (pairs: [number, number][]): SyncPoint[] => pairs.map(([u, d]) => ({ upstream: BigInt(u), downstream: BigInt(d) }));
const matched = (sourceOffset: bigint, targetOffset: bigint, bracketed = false): AuditSample => ({
  outcome: "matched",
  flow: FLOW,
  topic: "orders",
  partition: 2,
  sourceOffset,
  targetOffsets: [targetOffset],
  bracketed,
  sourceTimestamp: 1_000,
  mismatch: null,
});
const loss = (first: string, last: string, state = "firing"): AlertRef => ({
  type: "DATA_LOSS",
  state,
  flow: FLOW,
  topic: "orders",
  partition: 2,
  evidence: { firstLostOffset: first, lastLostOffset: last, lostCount: "50" },
});

// MM2 copied 0–99 one to one, the purge deleted 100–149 before it copied them, MM2 resumed at the new log start
// 150 and wrote the sync (150, 100) at once (OffsetSyncWriter: a sync after any upstream gap).
const epoch = syncs([[0, 0], [60, 60], [99, 99], [150, 100]]);
const contextOf = (logStart: bigint): ((key: string) => LostRangeContext | null) => (key) => (key === KEY ? { epoch, sourceLogStart: logStart } : null);

describe("listLostRanges", () => {
  it("takes the ranges of firing DATA_LOSS alerts only", () => {
    const alerts = [loss("100", "149"), loss("5", "9", "resolved"), { ...loss("1", "2"), type: "MM2_REDELIVERY" }];
    expect(listLostRanges(alerts)).toEqual(new Map([[KEY, [{ first: 100n, last: 149n }]]]));
  });
});

describe("confirmLostRanges", () => {
  const ranges = listLostRanges([loss("100", "149")]);

  it("confirms a range missing when the copy of the record after it sits right after the copies of the records before it", () => {
    expect(confirmLostRanges(FLOW, ranges, [matched(150n, 100n), matched(151n, 101n)], contextOf(150n), 7_000)).toEqual([
      { flow: FLOW, topic: "orders", partition: 2, firstLostOffset: 100n, lastLostOffset: 149n, targetOffset: 100n, confirmedAt: 7_000 },
    ]);
  });

  it("confirms nothing while the lost records are still on the source, for a bracketed match, or a range estimated too small", () => {
    expect(confirmLostRanges(FLOW, ranges, [matched(150n, 100n)], contextOf(140n), 7_000)).toEqual([]);
    expect(confirmLostRanges(FLOW, ranges, [matched(150n, 100n, true)], contextOf(150n), 7_000)).toEqual([]);
    // An estimate of 120–149: the sync (99, 99) counts 21 target offsets for 99–119, but 150's copy is at 100.
    expect(confirmLostRanges(FLOW, listLostRanges([loss("120", "149")]), [matched(150n, 100n)], contextOf(150n), 7_000)).toEqual([]);
    expect(confirmLostRanges("west->east", ranges, [matched(150n, 100n)], contextOf(150n), 7_000)).toEqual([]);
  });
});
