import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeSnapshot, makeTopic, runCycles, T0 } from "./fixtures";

const eastWith = (logEnd: bigint, leaderEpoch: number, topicId = "id-payments") =>
  makeCluster("east", { topics: [makeTopic("payments", [{ partition: 0, logEnd, leaderEpoch, leader: leaderEpoch === 7 ? 1 : 2 }], { topicId })] });

describe("UNCLEAN_TRUNCATION", () => {
  it("reports acknowledged records lost when the leader epoch rose and the log end went back", () => {
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(5120n, 7), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [eastWith(5000n, 8), makeCluster("west")] }) },
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

  it("ignores a normal leader change, a recreated topic, the first cycle and stale data", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [eastWith(5120n, 7), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [eastWith(5130n, 8), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 3, clusters: [eastWith(10n, 9, "id-new"), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 4, clusters: [{ ...eastWith(5n, 10, "id-new"), stale: true }, makeCluster("west")] }) },
    ]);
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.UNCLEAN_TRUNCATION))).toEqual([]);
  });
});
