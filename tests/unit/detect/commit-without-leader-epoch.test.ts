import { describe, expect, it } from "vitest";
import type { ConsumerGroupState } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeSnapshot, makeTopic, makeTopicConfigs, runCycles } from "./fixtures";

const group = (groupId: string, epochs: [string, number, number][]): ConsumerGroupState => ({
  groupId,
  state: "Stable",
  protocolType: "consumer", groupType: "classic",
  members: 2,
  offsets: epochs.map(([topic, partition, committedLeaderEpoch]) => ({ topic, partition, offset: 10n, committedLeaderEpoch })),
  error: null,
  dataAt: null,
});

describe("COMMIT_WITHOUT_LEADER_EPOCH", () => {
  it("reports one finding per group with the partition and topic counts (info without unclean election)", () => {
    const east = makeCluster("east", {
      topics: [makeTopic("orders", [{ partition: 0 }, { partition: 1 }]), makeTopic("payments")],
      groups: [
        group("kafkajs-app", [["orders", 0, -1], ["orders", 1, -1], ["payments", 2, -1]]),
        group("java-app", [["orders", 0, 7]]),
      ],
    });
    const [output] = runCycles([{ snapshot: makeSnapshot({ clusters: [east, makeCluster("west")] }) }]);
    expect(findingsOf(output, FindingType.COMMIT_WITHOUT_LEADER_EPOCH).map((f) => [f.key, f.severity, f.group, f.summary, f.evidence])).toEqual([
      [
        "COMMIT_WITHOUT_LEADER_EPOCH|east|kafkajs-app",
        "info",
        "kafkajs-app",
        "Group kafkajs-app at east commits without a leader epoch on 3 partitions (2 topics): it cannot detect log truncation after an unclean leader election",
        { partitions: 3, committedPartitions: 3, topics: 2, topicNames: "orders,payments", uncleanElectionTopics: null },
      ],
    ]);
  });

  it("is a warning when one of the group's topics allows unclean leader election", () => {
    const east = makeCluster("east", {
      topics: [makeTopic("orders", [{ partition: 0 }], { configs: makeTopicConfigs({ uncleanLeaderElection: true }) })],
      groups: [group("kafkajs-app", [["orders", 0, -1]])],
    });
    const [output] = runCycles([{ snapshot: makeSnapshot({ clusters: [east, makeCluster("west")] }) }]);
    expect(findingsOf(output, FindingType.COMMIT_WITHOUT_LEADER_EPOCH).map((f) => [f.severity, f.evidence.uncleanElectionTopics])).toEqual([["warning", "orders"]]);
  });
});
