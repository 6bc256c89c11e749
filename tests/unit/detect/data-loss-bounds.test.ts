import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlowPartition, makeSnapshot, makeTopicConfigs, runCycles } from "./fixtures";

/**
 * DATA_LOSS from MM2's position jump where no offset sync tells (emit.offset-syncs.enabled=false, or a
 * compact,delete topic): exact when MM2 was caught up on both sides of the jump, else an upper bound with the
 * least that was lost beside it. MM2 wrote target offsets 5000.. for source offsets 1000.. (one record each).
 */
const noSyncs = (overrides: Parameters<typeof makeFlowPartition>[0]) => makeFlowPartition({ latestSync: null, ...overrides });

/** Cycle 1: MM2 caught up at 1200 (Connect's flush = the log end); target log end 5200. */
const caughtUp = noSyncs({ sourceLogStart: 1000n, sourceLogEnd: 1200n, mm2Position: 1200n, targetLogEnd: 5200n });

const judge = (before: ReturnType<typeof noSyncs>, now: ReturnType<typeof noSyncs>, cleanupPolicy = "delete") => {
  const sourceConfigs = makeTopicConfigs({ cleanupPolicy });
  const [, second] = runCycles([
    { snapshot: makeSnapshot({ cycle: 1, sourceConfigs, partitions: [before] }) },
    { snapshot: makeSnapshot({ cycle: 2, sourceConfigs, partitions: [now] }) },
  ]);
  return findingsOf(second, FindingType.DATA_LOSS);
};

const figures = (found: ReturnType<typeof judge>) =>
  found.map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.lostCount, f.evidence.lostCountIs, f.evidence.lostAtLeast, f.evidence.exact]);

describe("DATA_LOSS from a position jump without offset syncs", () => {
  it("is exact when MM2 was caught up before and after: 1200..1299 written, 1200..1399 deleted, MM2 copied 1400..1499", () => {
    // Truth: producers wrote 1200..1499; MM2 was paused; 1200..1399 purged; resumed, MM2 copied 1400..1499 (100).
    const found = judge(caughtUp, noSyncs({ sourceLogStart: 1400n, sourceLogEnd: 1500n, mm2Position: 1500n, targetLogEnd: 5300n }));
    expect(figures(found)).toEqual([["1200", "1399", "200", "exact", "200", true]]);
    expect(found[0]?.summary).toBe("200 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1399)");
    expect(found[0]?.evidence.lostCountBoundReason).toBeNull();
  });

  it("counts only what MM2 had not copied when the purge came: it had copied 1200..1249 of the deleted 1200..1399", () => {
    // MM2 copied 1200..1249 (target 5200..5249), then 1200..1399 were purged; it jumped to 1400 and copied to 1500.
    const found = judge(caughtUp, noSyncs({ sourceLogStart: 1400n, sourceLogEnd: 1500n, mm2Position: 1500n, targetLogEnd: 5350n }));
    expect(figures(found)).toEqual([["1250", "1399", "150", "exact", "150", true]]);
  });

  it("raises nothing when MM2 had copied every deleted record before the purge (exact positions)", () => {
    const found = judge(caughtUp, noSyncs({ sourceLogStart: 1400n, sourceLogEnd: 1500n, mm2Position: 1500n, targetLogEnd: 5500n }));
    expect(found).toEqual([]);
  });

  it("says 'at most' with the least lost when Connect's flush trailed MM2 on both sides", () => {
    // Cycle 1: Connect's flush says 1200 while the log end is 1300 (MM2 may have copied up to 1300).
    // Cycle 2: log start 1400, Connect says 1450, log end 1500, MM2 wrote 50 target records since.
    const before = noSyncs({ sourceLogStart: 1000n, sourceLogEnd: 1300n, mm2Position: 1200n, targetLogEnd: 5200n });
    const found = judge(before, noSyncs({ sourceLogStart: 1400n, sourceLogEnd: 1500n, mm2Position: 1450n, targetLogEnd: 5250n }));
    // At most min(1400 − 1200, 1500 − 1200 − 50) = 200; at least 1450 − 1300 − 50 = 100.
    expect(figures(found)).toEqual([["1200", "1399", "200", "at-most", "100", false]]);
    expect(found[0]?.severity).toBe("critical");
    expect(found[0]?.summary).toBe(
      "At most 200 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1399; at least 100)",
    );
    expect(found[0]?.evidence.lostCountBoundReason).toBe(
      "MM2's position before the deletion (1200) is Connect's last offset flush (every offset.flush.interval.ms), " +
        "which can trail what MM2 had copied; " +
        "MM2's position now (1450) is Connect's last offset flush, which can trail what MM2 has copied since",
    );
  });

  it("look-alike: a purge of records MM2 had copied beyond Connect's last flush is at most the unflushed span, possibly none", () => {
    // MM2 had copied 1200..1299 (target 5300) but Connect still said 1200; then 1200..1299 were purged.
    const before = noSyncs({ sourceLogStart: 1000n, sourceLogEnd: 1300n, mm2Position: 1200n, targetLogEnd: 5300n });
    const found = judge(before, noSyncs({ sourceLogStart: 1300n, sourceLogEnd: 1300n, mm2Position: 1300n, targetLogEnd: 5300n }));
    expect(figures(found)).toEqual([["1200", "1299", "100", "at-most", "0", false]]);
    expect(found[0]?.summary).toMatch(/^At most 100 records .*\(offsets 1200–1299; possibly none\)$/);
    // Possibly none is not a page: a warning to look at; a bound whose least is a record or more stays critical.
    expect(found[0]?.severity).toBe("warning");
  });

  it("stays quiet when the target's growth accounts for every offset MM2 passed, even with a stale flush before", () => {
    const before = noSyncs({ sourceLogStart: 1000n, sourceLogEnd: 1300n, mm2Position: 1200n, targetLogEnd: 5200n });
    const found = judge(before, noSyncs({ sourceLogStart: 1300n, sourceLogEnd: 1300n, mm2Position: 1300n, targetLogEnd: 5300n }));
    expect(found).toEqual([]);
  });

  it("bounds the count on a compact,delete topic (compaction gaps are skipped too), the range exact in offsets", () => {
    const found = judge(caughtUp, noSyncs({ sourceLogStart: 1400n, sourceLogEnd: 1500n, mm2Position: 1500n, targetLogEnd: 5300n }), "compact,delete");
    expect(figures(found)).toEqual([["1200", "1399", "200", "at-most", null, false]]);
    expect(found[0]?.summary).toMatch(/\(offsets 1200–1399; possibly fewer\)$/);
    expect(found[0]?.evidence.lostCountBoundReason).toBe("compaction leaves offsets MM2 skips by design, and they count here");
  });

  it("uses only the deleted span when another producer writes to the target", () => {
    const now = noSyncs({
      sourceLogStart: 1400n,
      sourceLogEnd: 1500n,
      mm2Position: 1500n,
      targetLogEnd: 5500n,
      targetDensityIssue: "another producer writes to the target topic",
    });
    const found = judge(caughtUp, now);
    expect(figures(found)).toEqual([["1200", "1399", "200", "at-most", null, false]]);
  });
});
