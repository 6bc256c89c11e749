import { describe, expect, it } from "vitest";
import type { ConsumerGroupState } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeSnapshot, makeTopic, runCycles } from "./fixtures";

const group = (members: number, offsets: [number, bigint][]): ConsumerGroupState => ({
  groupId: "billing",
  state: members > 0 ? "Stable" : "Empty",
  protocolType: "consumer", groupType: "classic",
  members,
  offsets: offsets.map(([partition, offset]) => ({ topic: "orders", partition, offset, committedLeaderEpoch: 3 })),
  error: null,
  dataAt: null,
});
const east = (g: ConsumerGroupState, logEnd = 5000n) =>
  makeCluster("east", { topics: [makeTopic("orders", [{ partition: 0, logStart: 1000n, logEnd }, { partition: 1, logStart: 1000n, logEnd }])], groups: [g] });

describe("OFFSET_OUT_OF_RANGE", () => {
  it("reports commits below the log start with the records the group never read", () => {
    const [output] = runCycles([{ snapshot: makeSnapshot({ clusters: [east(group(2, [[0, 400n], [1, 3000n]])), makeCluster("west")] }) }]);
    expect(findingsOf(output, FindingType.OFFSET_OUT_OF_RANGE).map((f) => [f.key, f.severity, f.topic, f.partition, f.summary, f.evidence])).toEqual([
      [
        "OFFSET_OUT_OF_RANGE|east|billing|below-log-start",
        "warning",
        "orders",
        0,
        "Group billing at east committed offsets below the log start on 1 partition: 600 records deleted before it read them (worst orders/0: 600)",
        {
          side: "below-log-start",
          partitions: 1,
          worstPartition: "orders/0",
          worstCommittedOffset: "400",
          worstLogStart: "1000",
          worstLogEnd: "5000",
          missingRecords: "600",
          skippedIfLatest: "4000",
          groupState: "Stable",
          members: 2,
        },
      ],
    ]);
  });

  it("rates an empty group's stale commits as info", () => {
    const [output] = runCycles([{ snapshot: makeSnapshot({ clusters: [east(group(0, [[0, 400n]])), makeCluster("west")] }) }]);
    expect(findingsOf(output, FindingType.OFFSET_OUT_OF_RANGE).map((f) => f.severity)).toEqual(["info"]);
  });

  it("reports commits above the log end only when they stay there for two cycles", () => {
    const beyond = group(1, [[0, 5200n], [1, 5100n]]);
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [east(beyond), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [east(beyond), makeCluster("west")] }) },
    ]);
    expect(findingsOf(outputs[0], FindingType.OFFSET_OUT_OF_RANGE)).toEqual([]);
    expect(findingsOf(outputs[1], FindingType.OFFSET_OUT_OF_RANGE).map((f) => [f.key, f.evidence.beyondBy, f.evidence.rereadIfEarliest, f.summary])).toEqual([
      [
        "OFFSET_OUT_OF_RANGE|east|billing|above-log-end",
        "300",
        "8000",
        "Group billing at east committed offsets above the log end on 2 partitions: its offsets are 300 past the log end (worst orders/0: 200); resetting to earliest re-reads 8,000 records",
      ],
    ]);
  });

  it("ignores a commit read just after a log end that has since grown", () => {
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, clusters: [east(group(1, [[0, 4990n]])), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 2, clusters: [east(group(1, [[0, 5010n]])), makeCluster("west")] }) },
      { snapshot: makeSnapshot({ cycle: 3, clusters: [east(group(1, [[0, 5030n]]), 5040n), makeCluster("west")] }) },
    ]);
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.OFFSET_OUT_OF_RANGE))).toEqual([]);
  });

  it("judges exactly beyond 2^53, on partitions listed out of order, and not on a partition whose log was not read", () => {
    // Numbers stop being exact past 2^53: 2^60 and 2^60 + 1 are one float; the bigints tell them apart.
    const huge = 2n ** 60n;
    const offsets = (o: [string, number, bigint][]): ConsumerGroupState => ({ ...group(1, []), offsets: o.map(([topic, partition, offset]) => ({ topic, partition, offset, committedLeaderEpoch: 3 })) });
    const cluster = (g: ConsumerGroupState) =>
      makeCluster("east", {
        topics: [
          makeTopic("big", [{ partition: 0, logStart: huge, logEnd: huge }]),
          makeTopic("shuffled", [{ partition: 1, logStart: 1000n, logEnd: 5000n }, { partition: 0, logStart: 10n, logEnd: 20n }]),
          makeTopic("unread", [{ partition: 0, logStart: null, logEnd: 5000n }]),
        ],
        groups: [g],
      });
    const g = offsets([["big", 0, huge + 1n], ["shuffled", 0, 30n], ["shuffled", 1, 900n], ["shuffled", 2, 1n], ["unread", 0, 9000n]]);
    const outputs = runCycles([1, 2].map((c) => ({ snapshot: makeSnapshot({ cycle: c, clusters: [cluster(g), makeCluster("west")] }) })));
    expect(findingsOf(outputs[1], FindingType.OFFSET_OUT_OF_RANGE).map((f) => [f.key, f.evidence.worstPartition, f.evidence.missingRecords ?? f.evidence.beyondBy])).toEqual([
      ["OFFSET_OUT_OF_RANGE|east|billing|below-log-start", "shuffled/1", "100"],
      ["OFFSET_OUT_OF_RANGE|east|billing|above-log-end", "shuffled/0", "11"],
    ]);
    // Within the log: nothing, however large the offsets.
    const inside = offsets([["big", 0, huge]]);
    const quiet = runCycles([1, 2].map((c) => ({ snapshot: makeSnapshot({ cycle: c, clusters: [cluster(inside), makeCluster("west")] }) })));
    expect(quiet.flatMap((o) => findingsOf(o, FindingType.OFFSET_OUT_OF_RANGE))).toEqual([]);
  });
});
