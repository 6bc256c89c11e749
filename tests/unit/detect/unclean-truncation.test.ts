import { describe, expect, it } from "vitest";
import type { ConsumerGroupState, PreviousEpochEnd } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeFlow, makeFlowPartition, makeHistory, makeSnapshot, makeTopic, runCycles, T0 } from "./fixtures";

const eastWith = (logEnd: bigint, leaderEpoch: number, topicId = "id-payments", previousEpochEnd?: PreviousEpochEnd) =>
  makeCluster("east", {
    topics: [makeTopic("payments", [{ partition: 0, logEnd, leaderEpoch, leader: leaderEpoch === 7 ? 1 : 2, ...(previousEpochEnd ? { previousEpochEnd } : {}) }], { topicId })],
  });

/** The collector's mark (epoch 7, high watermark 50, read in cycle 1) with the new leader's end offset of epoch 7 (null: the read failed). */
const end = (endOffset: bigint | null, knownLogEnd = 50n): PreviousEpochEnd => ({ epoch: 7, endOffset, knownLogEnd, knownAt: T0 });

/** Two cycles of east: log end 50 in epoch 7, then `logEnd` in epoch 8 with the new leader's end offset of epoch 7. */
const electedWith = (logEnd: bigint, previousEpochEnd: PreviousEpochEnd | undefined) =>
  runCycles([
    { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(50n, 7), makeCluster("west")] }) },
    { snapshot: makeSnapshot({ cycle: 2, clusters: [eastWith(logEnd, 8, "id-payments", previousEpochEnd), makeCluster("west")] }) },
  ]);

describe("UNCLEAN_TRUNCATION", () => {
  it("reports acknowledged records lost when the leader epoch rose, the end offset read failed and the log end went back", () => {
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(5120n, 7), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [eastWith(5000n, 8, "id-payments", end(null, 5120n)), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 3, clusters: [eastWith(5050n, 8), makeCluster("west")] }) },
    ]);
    const findings = findingsOf(second, FindingType.UNCLEAN_TRUNCATION);
    expect(findings).toEqual([
      {
        key: "UNCLEAN_TRUNCATION|east|payments|0|epoch8",
        type: "UNCLEAN_TRUNCATION",
        severity: "critical",
        cluster: "east",
        topic: "payments",
        partition: 0,
        summary: "payments/0 at east lost at least 120 acknowledged records (offsets 5000–5119) when leader epoch 7 → 8 truncated the log (unclean leader election?)",
        evidence: {
          previousLogEnd: "5120",
          previousLogEndSeenAt: T0,
          newLogEnd: "5000",
          lostCount: "120",
          lostCountIsLowerBound: true,
          firstLostOffset: "5000",
          lastLostOffset: "5119",
          previousLeaderEpoch: 7,
          newLeaderEpoch: 8,
          leader: 2,
          seenAt: T0 + 10_000,
        },
        observedAt: T0 + 10_000,
      },
    ]);
    // Still held (and only once) in the next cycle.
    expect(findingsOf(third, FindingType.UNCLEAN_TRUNCATION).map((f) => f.key)).toEqual(["UNCLEAN_TRUNCATION|east|payments|0|epoch8"]);
  });

  it("ignores a normal leader change, an epoch rise without a mark (a recreated topic, the first cycle) and stale data", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(5120n, 7), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [eastWith(5130n, 8, "id-payments", end(5125n, 5120n)), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 3, clusters: [eastWith(10n, 9, "id-new"), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 4, clusters: [{ ...eastWith(5n, 10, "id-new", end(0n, 10n)), stale: true }, makeCluster("west")] }) },
    ]);
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.UNCLEAN_TRUNCATION))).toEqual([]);
  });

  it("gives the exact range from the new leader's end offset of the previous epoch, though producers refilled past the old log end", () => {
    // Epoch 7's leader had acknowledged 0–49; broker 2 held epoch 7 only up to 29 and, leader in
    // epoch 8, has since taken 40 new records (log end 70 > 50: the log end never went back).
    const [, second] = electedWith(70n, end(30n));
    expect(findingsOf(second, FindingType.UNCLEAN_TRUNCATION)).toEqual([
      {
        key: "UNCLEAN_TRUNCATION|east|payments|0|epoch8",
        type: "UNCLEAN_TRUNCATION",
        severity: "critical",
        cluster: "east",
        topic: "payments",
        partition: 0,
        summary:
          "payments/0 at east lost 20 acknowledged records (offsets 30–49) in an unclean leader election: the new leader (broker 2, epoch 8) " +
          "held epoch 7's records only up to offset 29; 20 of these offsets already hold different records",
        evidence: {
          previousLogEnd: "50",
          previousLogEndSeenAt: T0,
          newLogEnd: "70",
          lostCount: "20",
          lostCountIsLowerBound: false,
          firstLostOffset: "30",
          lastLostOffset: "49",
          previousEpochEndOffset: "30",
          rewrittenCount: "20",
          previousLeaderEpoch: 7,
          newLeaderEpoch: 8,
          leader: 2,
          seenAt: T0 + 10_000,
        },
        observedAt: T0 + 10_000,
      },
    ]);
  });

  it("counts only the lost offsets already rewritten, and none before new records arrive", () => {
    const partly = findingsOf(electedWith(41n, end(30n))[1], FindingType.UNCLEAN_TRUNCATION);
    expect(partly.map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.rewrittenCount])).toEqual([["30", "49", "11"]]);
    expect(partly[0]!.summary).toMatch(/; 11 of these offsets already hold different records$/);
    const none = findingsOf(electedWith(30n, end(30n))[1], FindingType.UNCLEAN_TRUNCATION);
    expect(none.map((f) => [f.evidence.lostCount, f.evidence.lostCountIsLowerBound, f.evidence.rewrittenCount])).toEqual([["20", false, "0"]]);
    expect(none[0]!.summary).toBe(
      "payments/0 at east lost 20 acknowledged records (offsets 30–49) in an unclean leader election: the new leader (broker 2, epoch 8) held epoch 7's records only up to offset 29",
    );
  });

  it("stays quiet on a clean leader change, even while the new leader's high watermark still trails the old one", () => {
    // The new leader was in the ISR: its epoch-7 records end at or beyond the old high watermark.
    for (const [logEnd, endOffset] of [[50n, 50n], [55n, 53n], [45n, 52n]] as const) {
      expect(findingsOf(electedWith(logEnd, end(endOffset))[1], FindingType.UNCLEAN_TRUNCATION)).toEqual([]);
    }
  });

  it("falls back to the log-end lower bound when the end offset read failed", () => {
    const found = findingsOf(electedWith(40n, end(null))[1], FindingType.UNCLEAN_TRUNCATION);
    expect(found.map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.lostCountIsLowerBound])).toEqual([["40", "49", true]]);
    // Refilled and no end offset: nothing can be told.
    expect(findingsOf(electedWith(70n, end(null))[1], FindingType.UNCLEAN_TRUNCATION)).toEqual([]);
  });

  it("names the lost records MM2 had already copied and the groups committed past the divergence point", () => {
    const group = (groupId: string, offset: bigint, committedLeaderEpoch: number): ConsumerGroupState => ({
      groupId,
      state: "EMPTY",
      protocolType: "consumer",
      groupType: "classic",
      members: 0,
      offsets: [{ topic: "payments", partition: 0, offset, committedLeaderEpoch }],
      error: null,
      dataAt: T0 + 10_000,
    });
    // MM2 had copied up to source offset 44 (position 45) when epoch 7 ended.
    const flow = makeFlow({ partitions: [makeFlowPartition({ topic: "payments", partition: 0, targetTopic: "east.payments", sourceLogEnd: 50n, mm2Position: 45n })] });
    const groups = [group("audit", 52n, 7), group("billing", 45n, -1), group("caught-up", 30n, -1), group("new-reader", 60n, 8)];
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(50n, 7), makeCluster("west")], flows: [flow] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [{ ...eastWith(70n, 8, "id-payments", end(30n)), groups }, makeCluster("west")], flows: [flow] }) },
    ]);
    const [finding] = findingsOf(second, FindingType.UNCLEAN_TRUNCATION);
    expect(finding!.evidence).toMatchObject({
      firstLostOffset: "30",
      lastLostOffset: "49",
      copiedByMm2: "east->west: 30–44",
      copiedByMm2Count: "15",
      // caught-up read nothing lost; new-reader committed in epoch 8, on the new records.
      groupsPastDivergence: "audit at 52 (epoch 7), billing at 45 (no leader epoch)",
      groupsWithoutLeaderEpoch: 1,
    });
    expect(finding!.summary).toBe(
      "payments/0 at east lost 20 acknowledged records (offsets 30–49) in an unclean leader election: the new leader (broker 2, epoch 8) " +
        "held epoch 7's records only up to offset 29; 20 of these offsets already hold different records; " +
        "MM2 east->west had already copied 15 of them (30–44): only west still holds them; MM2 has not copied past the truncation yet; " +
        "2 consumer groups committed past offset 30: audit at 52 (epoch 7), billing at 45 (no leader epoch)",
    );
  });
});

/**
 * MM2 east->west had copied payments/0 up to 49 (syncs 0→0, 29→29, 49→49: target offset = source
 * offset) when epoch 7 ended; the new leader diverges at 30 and holds 40 new records (30–69).
 */
describe("UNCLEAN_TRUNCATION: what MM2 did with the reused offsets", () => {
  const flowAt = (mm2Position: bigint, targetLogEnd: bigint, sourceLogEnd: bigint) =>
    makeFlow({ partitions: [makeFlowPartition({ topic: "payments", partition: 0, targetTopic: "east.payments", sourceLogEnd, mm2Position, targetLogEnd })] });
  const before = [[0, 0], [29, 29], [49, 49]] as [number, number][];
  /** Cycle 1 before the election; cycle 2 after it (or, `clean`, the same leader epoch and log). */
  const afterElection = (flow: ReturnType<typeof flowAt>, syncs: [number, number][], clean = false) =>
    runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(50n, 7), makeCluster("west")], flows: [flowAt(50n, 50n, 50n)] }), history: makeHistory(before, "payments", 0) },
      {
        snapshot: makeSnapshot({ cycle: 2, clusters: [clean ? eastWith(70n, 7) : eastWith(70n, 8, "id-payments", end(30n)), makeCluster("west")], flows: [flow] }),
        history: makeHistory([...before, ...syncs], "payments", 0),
      },
    ])[1];

  it("MM2 went back to the divergence point (KIP-320) and copied the new records too: the target holds both versions", () => {
    // Sync 30→50: MM2 copied source 30 again, to target 50; it has copied up to 69 (target 89).
    const output = afterElection(flowAt(70n, 90n, 70n), [[30, 50]]);
    const [finding] = findingsOf(output, FindingType.UNCLEAN_TRUNCATION);
    expect(finding!.evidence).toMatchObject({
      copiedByMm2: "east->west: 30–49",
      copiedByMm2Count: "20",
      copiedLostOnTarget: "east->west: east.payments 30–49",
      mm2AfterTruncation: "east->west: rewound to 30",
      reusedOffsetsCopied: "east->west: 30–49 as east.payments 50–69",
      reusedOffsetsCopiedCount: "20",
    });
    expect(finding!.summary).toBe(
      "payments/0 at east lost 20 acknowledged records (offsets 30–49) in an unclean leader election: the new leader (broker 2, epoch 8) " +
        "held epoch 7's records only up to offset 29; 20 of these offsets already hold different records; " +
        "MM2 east->west had already copied 20 of them (30–49): only west still holds them, as east.payments 30–49; " +
        "MM2 then went back to offset 30 and copied the 20 new records at offsets 30–49 too, as east.payments 50–69: " +
        "west holds both versions of offsets 30–49",
    );
    // New records, not a second copy: no MM2_REDELIVERY — which the same step is without the election.
    expect(findingsOf(output, FindingType.MM2_REDELIVERY)).toEqual([]);
    const redelivered = findingsOf(afterElection(flowAt(70n, 90n, 70n), [[30, 50]], true), FindingType.MM2_REDELIVERY);
    expect(redelivered.map((f) => [f.evidence.firstDuplicateOffset, f.evidence.lastDuplicateOffset, f.evidence.firstSecondCopyTargetOffset])).toEqual([["30", "49", "50"]]);
  });

  it("counts only the reused offsets MM2 has copied so far", () => {
    // MM2 is back at 30 and has copied 30–37 (target 50–57).
    const [finding] = findingsOf(afterElection(flowAt(38n, 58n, 70n), [[30, 50]]), FindingType.UNCLEAN_TRUNCATION);
    expect([finding!.evidence.reusedOffsetsCopied, finding!.evidence.reusedOffsetsCopiedCount]).toEqual(["east->west: 30–37 as east.payments 50–57", "8"]);
    expect(finding!.summary).toMatch(/; MM2 then went back to offset 30 and copied the 8 new records at offsets 30–37 too, as east\.payments 50–57: west holds both versions of offsets 30–37$/);
  });

  it("MM2 went on from its old position: the new records at the reused offsets are skipped", () => {
    // No step back; the target grew by 20 while MM2 went from 50 to 70 (delayed sync 69→69).
    const [finding] = findingsOf(afterElection(flowAt(70n, 70n, 70n), [[69, 69]]), FindingType.UNCLEAN_TRUNCATION);
    expect(finding!.evidence).toMatchObject({
      copiedLostOnTarget: "east->west: east.payments 30–49",
      mm2AfterTruncation: "east->west: skipped 30–49",
      reusedOffsetsSkipped: "east->west: 30–49",
      reusedOffsetsSkippedCount: "20",
    });
    expect(finding!.evidence.reusedOffsetsCopied).toBeUndefined();
    expect(finding!.summary).toMatch(
      /; MM2 east->west had already copied 20 of them \(30–49\): only west still holds them, as east\.payments 30–49; MM2 then went on past them and skipped the 20 new records at offsets 30–49: west will never hold them$/,
    );
  });

  it("claims nothing while the target does not tell: a step back not read yet, or no progress", () => {
    // The target grew by 40 while the position rose by 20: a rewind whose sync is not read yet.
    for (const flow of [flowAt(70n, 90n, 70n), flowAt(50n, 50n, 70n)]) {
      const [finding] = findingsOf(afterElection(flow, []), FindingType.UNCLEAN_TRUNCATION);
      expect([finding!.evidence.mm2AfterTruncation, finding!.evidence.reusedOffsetsCopied, finding!.evidence.reusedOffsetsSkipped]).toEqual([
        "east->west: not past the truncation yet",
        undefined,
        undefined,
      ]);
      expect(finding!.evidence.copiedLostOnTarget).toBe("east->west: east.payments 30–49");
    }
  });

  it("does not place the lost copies on the target when the syncs before them show a gap", () => {
    // 29→29 then 49→50: one upstream offset took two target offsets, the run is not proven.
    const gap = [[0, 0], [29, 29], [49, 50]] as [number, number][];
    const output = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(50n, 7), makeCluster("west")], flows: [flowAt(50n, 51n, 50n)] }), history: makeHistory(gap, "payments", 0) },
      {
        snapshot: makeSnapshot({ cycle: 2, clusters: [eastWith(70n, 8, "id-payments", end(30n)), makeCluster("west")], flows: [flowAt(70n, 91n, 70n)] }),
        history: makeHistory([...gap, [30, 51]], "payments", 0),
      },
    ])[1];
    const [finding] = findingsOf(output, FindingType.UNCLEAN_TRUNCATION);
    expect(finding!.evidence.copiedLostOnTarget).toBeUndefined();
    expect(finding!.evidence.reusedOffsetsCopied).toBe("east->west: 30–49 as east.payments 51–70");
    expect(finding!.summary).toMatch(/: only west still holds them; MM2 then went back to offset 30 /);
  });
});

