import { describe, expect, it } from "vitest";
import { FindingType, type DetectorMemory } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeFlowPartition, makeHistory, makeSnapshot, makeStaleCluster, makeTopicConfigs, runCycles, T0 } from "./fixtures";

const KEY = "DATA_LOSS|east->west|orders|2|1200";

/** MM2 has copied everything below 1200 (last sync 1199→5199, target log end 5200). */
const caughtUpTo1200 = (overrides: Parameters<typeof makeFlowPartition>[0] = {}) =>
  makeFlowPartition({
    sourceLogStart: 1000n,
    sourceLogEnd: 2000n,
    mm2Position: 1200n,
    targetLogEnd: 5200n,
    latestSync: { upstream: 1199n, downstream: 5199n },
    ...overrides,
  });

describe("DATA_LOSS", () => {
  it("judges every copy of a partition a flow lists twice, not only the last one its columns hold", () => {
    // The flow columns hold the last copy's numbers (no loss there): the first copy must still be judged whole.
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [caughtUpTo1200()] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [caughtUpTo1200({ sourceLogStart: 1700n }), caughtUpTo1200()] }) },
    ]);
    expect(findingsOf(second, FindingType.DATA_LOSS).map((f) => [f.key, f.evidence.lostCount])).toEqual([[KEY, "500"]]);
  });

  it("reports records deleted while MM2 is still behind the new log start, with exact evidence", () => {
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [caughtUpTo1200()] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [caughtUpTo1200({ sourceLogStart: 1700n })] }) },
    ]);
    const [finding] = findingsOf(second, FindingType.DATA_LOSS);
    expect(findingsOf(second, FindingType.DATA_LOSS)).toHaveLength(1);
    expect(finding).toMatchObject({
      key: KEY,
      severity: "critical",
      flow: "east->west",
      cluster: "east",
      topic: "orders",
      partition: 2,
      summary: "At most 500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699; possibly fewer)",
    });
    expect(finding?.evidence).toMatchObject({
      firstLostOffset: "1200",
      lastLostOffset: "1699",
      lostCount: "500",
      exact: false,
      detectedBy: "position-behind-log-start",
      seenAt: T0 + 10_000,
      lostCountIs: "at-most",
      lostAtLeast: null,
    });
    expect(finding?.evidence.lostCountBoundReason).toMatch(/^MM2's position \(1200\) is Connect's last offset flush/);
  });

  it("keeps one finding with the same key while the loss grows, then takes the exact range from the offset syncs", () => {
    const syncsBefore = makeHistory([[1100, 5100], [1199, 5199]]);
    const syncsAfterJump = makeHistory([[1100, 5100], [1199, 5199], [1900, 5200]]);
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [caughtUpTo1200()] }), history: syncsBefore },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [caughtUpTo1200({ sourceLogStart: 1700n })] }), history: syncsBefore },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [caughtUpTo1200({ sourceLogStart: 1900n })] }), history: syncsBefore },
      {
        // MM2 reset to the earliest offset (1900): the sync at the jump shows the 700 skipped offsets.
        snapshot: makeSnapshot({
          cycle: 4,
          partitions: [caughtUpTo1200({ sourceLogStart: 1900n, mm2Position: 1901n, targetLogEnd: 5201n, latestSync: { upstream: 1900n, downstream: 5200n } })],
        }),
        history: syncsAfterJump,
      },
    ]);
    const [, second, third, fourth] = outputs;
    expect(findingsOf(second, FindingType.DATA_LOSS).map((f) => f.evidence.lostCount)).toEqual(["500"]);
    expect(findingsOf(third, FindingType.DATA_LOSS).map((f) => [f.key, f.evidence.lastLostOffset, f.evidence.lostCount])).toEqual([[KEY, "1899", "700"]]);
    const merged = findingsOf(fourth, FindingType.DATA_LOSS);
    expect(merged).toHaveLength(1);
    expect(merged[0]?.key).toBe(KEY);
    expect(merged[0]?.evidence).toMatchObject({
      firstLostOffset: "1200",
      lastLostOffset: "1899",
      lostCount: "700",
      exact: true,
      detectedBy: "position-behind-log-start,offset-sync-gap",
      seenAt: T0 + 10_000,
    });
  });

  it("catches a jump past the log start between two cycles and merges the later sync evidence into it", () => {
    const before = makeHistory([[1100, 5100], [1199, 5199]]);
    const after = makeHistory([[1100, 5100], [1199, 5199], [1700, 5200]]);
    // Between cycles 1 and 2: log start 1000 → 1700, MM2 jumped to 1700 and copied 1700..1799.
    const jumped = caughtUpTo1200({ sourceLogStart: 1700n, mm2Position: 1800n, targetLogEnd: 5300n });
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [caughtUpTo1200()] }), history: before },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [jumped] }), history: before },
      { snapshot: makeSnapshot({ cycle: 3, partitions: [{ ...jumped, latestSync: { upstream: 1799n, downstream: 5299n } }] }), history: after },
    ]);
    const [jump] = findingsOf(second, FindingType.DATA_LOSS);
    expect(jump?.key).toBe(KEY);
    expect(jump?.evidence).toMatchObject({ firstLostOffset: "1200", lastLostOffset: "1699", lostCount: "500", detectedBy: "position-jump", exact: false });
    const confirmed = findingsOf(third, FindingType.DATA_LOSS);
    expect(confirmed.map((f) => [f.key, f.evidence.lostCount, f.evidence.exact, f.evidence.detectedBy])).toEqual([
      [KEY, "500", true, "position-jump,offset-sync-gap"],
    ]);
  });

  it("attributes an offset-sync gap to the deleted offsets only", () => {
    const before = makeHistory([[999, 4999]]);
    const after = makeHistory([[999, 4999], [1500, 5000]]);
    // Offsets 1000..1499 were skipped; only 1000..1299 are below the log start, i.e. deleted.
    const partition = makeFlowPartition({ sourceLogStart: 1300n, sourceLogEnd: 3000n, mm2Position: 1501n, targetLogEnd: 5001n, latestSync: { upstream: 1500n, downstream: 5000n } });
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [makeFlowPartition({ sourceLogEnd: 3000n, mm2Position: 1000n, targetLogEnd: 5000n, latestSync: { upstream: 999n, downstream: 4999n } })] }), history: before },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [partition] }), history: after },
    ]);
    expect(findingsOf(second, FindingType.DATA_LOSS).map((f) => [f.key, f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.lostCount])).toEqual([
      ["DATA_LOSS|east->west|orders|2|1000", "1000", "1299", "300"],
    ]);
  });

  describe("compact,delete topics (retention skips over compacted offsets)", () => {
    // Between cycles 1 and 2 retention moved the log start 0 → 1700 past MM2 (at 1200); MM2 jumped to 1700 and
    // copied 1700..1799, writing two syncs: offsets 1200..1699 were deleted before MM2 copied them.
    const before = makeHistory([[1100, 5100], [1199, 5199]]);
    const after = makeHistory([[1100, 5100], [1199, 5199], [1700, 5200], [1750, 5250]]);
    const skipCycles = (cleanupPolicy: string) =>
      runCycles([
        { snapshot: makeSnapshot({ cycle: 1, sourceConfigs: makeTopicConfigs({ cleanupPolicy }), partitions: [caughtUpTo1200()] }), history: before },
        {
          snapshot: makeSnapshot({
            cycle: 2,
            sourceConfigs: makeTopicConfigs({ cleanupPolicy }),
            partitions: [caughtUpTo1200({ sourceLogStart: 1700n, mm2Position: 1800n, targetLogEnd: 5300n, latestSync: { upstream: 1750n, downstream: 5250n } })],
          }),
          history: after,
        },
      ]);

    it("reports the skip on a compact,delete topic from the position jump, though new sync steps exist", () => {
      const found = findingsOf(skipCycles("compact,delete")[1], FindingType.DATA_LOSS);
      expect(found.map((f) => [f.key, f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.lostCount, f.evidence.detectedBy, f.evidence.exact])).toEqual([
        [KEY, "1200", "1699", "500", "position-jump", false],
      ]);
    });

    it("reports the same skip exactly from the sync gap on a delete-policy topic (control)", () => {
      const found = findingsOf(skipCycles("delete")[1], FindingType.DATA_LOSS);
      expect(found.map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.detectedBy, f.evidence.exact])).toEqual([["1200", "1699", "offset-sync-gap", true]]);
    });

    it("raises nothing on a compact-only topic, whose sync gaps are compaction's", () => {
      expect(findingsOf(skipCycles("compact")[1], FindingType.DATA_LOSS)).toEqual([]);
    });

    it("raises nothing on a compact,delete topic when the log start stays below where MM2 was", () => {
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, sourceConfigs: makeTopicConfigs({ cleanupPolicy: "compact,delete" }), partitions: [caughtUpTo1200()] }), history: before },
        {
          // MM2 read over compacted offsets 1200..1699 (syncs show the gap); retention only reached 1100.
          snapshot: makeSnapshot({
            cycle: 2,
            sourceConfigs: makeTopicConfigs({ cleanupPolicy: "compact,delete" }),
            partitions: [caughtUpTo1200({ sourceLogStart: 1100n, mm2Position: 1800n, targetLogEnd: 5300n, latestSync: { upstream: 1750n, downstream: 5250n } })],
          }),
          history: after,
        },
      ]);
      expect(findingsOf(second, FindingType.DATA_LOSS)).toEqual([]);
    });
  });

  describe("benign cases", () => {
    const gapHistory = makeHistory([[999, 4999], [1500, 5000]]);
    const gapCycles = (sourceConfigs: ReturnType<typeof makeTopicConfigs> | null, logStart: bigint) =>
      runCycles([
        { snapshot: makeSnapshot({ cycle: 1, sourceConfigs, partitions: [makeFlowPartition({ sourceLogEnd: 3000n, mm2Position: 1000n })] }), history: makeHistory([[999, 4999]]) },
        {
          snapshot: makeSnapshot({
            cycle: 2,
            sourceConfigs,
            partitions: [makeFlowPartition({ sourceLogStart: logStart, sourceLogEnd: 3000n, mm2Position: 1501n, targetLogEnd: 5001n, latestSync: { upstream: 1500n, downstream: 5000n } })],
          }),
          history: gapHistory,
        },
      ]);

    it("ignores upstream gaps in a compacted topic", () => {
      expect(findingsOf(gapCycles(makeTopicConfigs({ cleanupPolicy: "compact" }), 1500n)[1], FindingType.DATA_LOSS)).toEqual([]);
      expect(findingsOf(gapCycles(makeTopicConfigs({ cleanupPolicy: "compact,delete" }), 1500n)[1], FindingType.DATA_LOSS)).toEqual([]);
    });

    it("reports the same gap on a delete-policy topic (control)", () => {
      expect(findingsOf(gapCycles(makeTopicConfigs(), 1500n)[1], FindingType.DATA_LOSS).map((f) => f.evidence.lostCount)).toEqual(["500"]);
    });

    it("does not judge sync gaps while the topic configs are unknown", () => {
      expect(findingsOf(gapCycles(null, 1500n)[1], FindingType.DATA_LOSS)).toEqual([]);
    });

    it("ignores transaction markers: one-offset gaps while the log start stays below them", () => {
      const markers = makeHistory([[999, 999], [1001, 1000], [1003, 1001], [1005, 1002]]);
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1 }), history: makeHistory([[999, 999]]) },
        {
          snapshot: makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ sourceLogStart: 500n, sourceLogEnd: 1006n, mm2Position: 1006n, targetLogEnd: 1003n, latestSync: { upstream: 1005n, downstream: 1002n } })] }),
          history: markers,
        },
      ]);
      expect(findingsOf(second, FindingType.DATA_LOSS)).toEqual([]);
    });

    it("ignores marker gaps the log start has already passed on a partition known to hold transaction markers", () => {
      const markers = makeHistory([[999, 999], [1001, 1000], [1004, 1001], [1006, 1002]]);
      const purgedPast = { sourceLogStart: 1006n, sourceLogEnd: 1007n, mm2Position: 1007n, targetLogEnd: 1003n, latestSync: { upstream: 1006n, downstream: 1002n } };
      const run = (transactionMarkersSeen: boolean) =>
        runCycles([
          { snapshot: makeSnapshot({ cycle: 1 }), history: makeHistory([[999, 999]]) },
          { snapshot: makeSnapshot({ cycle: 2, partitions: [makeFlowPartition({ ...purgedPast, transactionMarkersSeen })] }), history: markers },
        ])[1]!;
      expect(findingsOf(run(true), FindingType.DATA_LOSS)).toEqual([]);
      // Without marker evidence the same steps are deleted, never-copied offsets (control).
      expect(findingsOf(run(false), FindingType.DATA_LOSS).map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset])).toEqual([
        ["1000", "1000"],
        ["1002", "1003"],
        ["1005", "1005"],
      ]);
    });

    it("says the count is offsets, markers included, on a partition with transaction markers", () => {
      const before = makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 1200n, mm2Position: 1000n, transactionMarkersSeen: true });
      const purged = { ...before, sourceLogStart: 1100n, sourceLogEnd: 1300n };
      const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [before] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [purged] }) }]);
      const findings = findingsOf(second, FindingType.DATA_LOSS);
      expect(findings.map((f) => [f.summary, f.evidence.lostCount, f.evidence.lostCountIncludesMarkers])).toEqual([
        ["At most 100 offsets (records and transaction markers) of orders/2 were deleted at east before MM2 copied them (offsets 1000–1099; possibly fewer)", "100", true],
      ]);
    });

    it("ignores empty partitions and partitions MM2 never copied from", () => {
      const empty = makeFlowPartition({ sourceLogStart: 1000n, sourceLogEnd: 1000n, mm2Position: 1000n });
      const neverCopied = makeFlowPartition({ partition: 3, sourceLogStart: 1000n, sourceLogEnd: 1000n, mm2Position: null, latestSync: null });
      const [, second] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [empty, neverCopied] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [empty, { ...neverCopied, sourceLogStart: 1200n, sourceLogEnd: 1200n }] }) },
      ]);
      expect(findingsOf(second, FindingType.DATA_LOSS)).toEqual([]);
    });

    it("counts from the best-known position, not from a committed position one flush behind (purge of a caught-up topic)", () => {
      // Committed 60 s ago: 900; the newest sync plus the live target log end prove MM2 copied up to 999.
      const purged = makeFlowPartition({
        sourceLogStart: 1000n,
        sourceLogEnd: 1000n,
        mm2Position: 1000n,
        committedPosition: 900n,
        positionSource: "offset-sync",
        targetLogEnd: 5000n,
        latestSync: { upstream: 950n, downstream: 4950n },
      });
      const [, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1 }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [purged] }) }]);
      expect(findingsOf(second, FindingType.DATA_LOSS)).toEqual([]);
    });

    it("never judges stale data from an unreachable cluster", () => {
      const behind = caughtUpTo1200({ sourceLogStart: 1700n });
      const [, second, third] = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [caughtUpTo1200()] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [behind], clusters: [makeStaleCluster("east"), makeCluster("west")] }) },
        { snapshot: makeSnapshot({ cycle: 3, partitions: [behind], east: { reachable: false, stale: true } }) },
      ]);
      expect(findingsOf(second, FindingType.DATA_LOSS)).toEqual([]);
      expect(findingsOf(third, FindingType.DATA_LOSS)).toEqual([]);
    });

    it("does not judge the first cycle after start-up, only the next one", () => {
      const behind = caughtUpTo1200({ sourceLogStart: 1700n });
      const [first, second] = runCycles([{ snapshot: makeSnapshot({ cycle: 1, partitions: [behind] }) }, { snapshot: makeSnapshot({ cycle: 2, partitions: [behind] }) }]);
      expect(findingsOf(first, FindingType.DATA_LOSS)).toEqual([]);
      expect(findingsOf(second, FindingType.DATA_LOSS).map((f) => f.key)).toEqual([KEY]);
    });

    it("does not re-judge old sync gaps on first sight of a history", () => {
      const old = makeHistory([[999, 4999], [1500, 5000], [1600, 5100]]);
      const partition = makeFlowPartition({ sourceLogStart: 1550n, sourceLogEnd: 3000n, mm2Position: 1601n, targetLogEnd: 5101n, latestSync: { upstream: 1600n, downstream: 5100n } });
      const outputs = runCycles([
        { snapshot: makeSnapshot({ cycle: 1, partitions: [partition] }), history: old },
        { snapshot: makeSnapshot({ cycle: 2, partitions: [partition] }), history: old },
      ]);
      expect(outputs.flatMap((o) => findingsOf(o, FindingType.DATA_LOSS))).toEqual([]);
    });
  });

  describe("across cycles", () => {
    const lossCycles = [
      { snapshot: makeSnapshot({ cycle: 1, partitions: [caughtUpTo1200()] }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [caughtUpTo1200({ sourceLogStart: 1700n })] }) },
    ];

    it("keeps the finding active while held and drops it after eventHoldMs without a new sighting", () => {
      // MM2 caught up at cycle 3: the loss is no longer visible in the snapshot.
      const recovered = makeSnapshot({ cycle: 3, partitions: [caughtUpTo1200({ sourceLogStart: 1700n, mm2Position: 2000n, targetLogEnd: 5500n })] });
      const outputs = runCycles([...lossCycles, { snapshot: recovered }, { snapshot: { ...recovered, cycle: 4 }, now: T0 + 20_000 + 3_600_000 }]);
      expect(findingsOf(outputs[2], FindingType.DATA_LOSS).map((f) => f.key)).toEqual([KEY]);
      expect(findingsOf(outputs[3], FindingType.DATA_LOSS)).toEqual([]);
    });

    it("remembers reported losses through a JSON round trip of the memory (collector restart)", () => {
      const [, second] = runCycles(lossCycles);
      const restored = JSON.parse(JSON.stringify(second?.memory)) as DetectorMemory;
      const [again] = runCycles([{ snapshot: makeSnapshot({ cycle: 3, partitions: [caughtUpTo1200({ sourceLogStart: 1700n })] }) }], undefined, restored);
      expect(findingsOf(again, FindingType.DATA_LOSS).map((f) => [f.key, f.evidence.seenAt])).toEqual([[KEY, T0 + 10_000]]);
    });
  });
});
