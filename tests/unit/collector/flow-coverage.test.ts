import { describe, expect, it } from "vitest";
import { buildFlow } from "@/lib/collector/flow-builder";
import { readTopicFilter } from "@/lib/mm2";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";

/** The source cluster of the sandbox's east->west flow, with MM2's own topics beside the workload's. */
function makeEast() {
  return makeCluster("east", [
    makeTopic("orders", [{}, {}]),
    makeTopic("payments"),
    makeTopic("heartbeats"),
    makeTopic("mm2-offset-syncs.west.internal"),
    makeTopic("__consumer_offsets"),
  ]);
}

describe("buildFlow: topic coverage", () => {
  it("gives every unmatched source topic the rule that leaves it out, and marks internal ones", () => {
    const def = makeDefinition({ topicsFilter: "orders", topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({ topics: "orders" }) }] });
    const flow = buildFlow(def, makeEast(), makeCluster("west", [makeTopic("east.orders", [{}, {}])]), makeReadings(), T0);
    expect(flow.coverage).toEqual({
      filterKnown: true,
      matchedByFilter: 1,
      unmatched: [
        { topic: "payments", reason: "not matched by topics", internal: false },
        { topic: "mm2-offset-syncs.west.internal", reason: "an internal topic for the replication policy", internal: true },
        { topic: "__consumer_offsets", reason: "an internal topic for the replication policy", internal: true },
      ],
      // heartbeats is in the flow whatever the filter says, and east.heartbeats is not on west yet.
      missingOnTarget: [{ topic: "heartbeats", targetTopic: "east.heartbeats", since: T0 }],
      partitionsMissingOnTarget: [],
      targetKnown: true,
    });
  });

  it("counts no match when the filter takes only heartbeats, with the exclude rule named", () => {
    const def = makeDefinition({ topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({ "topics.exclude": "orders, payments" }) }] });
    const flow = buildFlow(def, makeEast(), makeCluster("west", [makeTopic("east.heartbeats")]), makeReadings(), T0);
    expect(flow.coverage?.matchedByFilter).toBe(0);
    expect(flow.coverage?.unmatched.filter((u) => !u.internal)).toEqual([
      { topic: "orders", reason: "excluded by topics.exclude", internal: false },
      { topic: "payments", reason: "excluded by topics.exclude", internal: false },
    ]);
    expect(flow.coverage?.missingOnTarget).toEqual([]);
  });

  it("keeps when a missing topic was first seen missing, and carries the list while the target is not read", () => {
    const def = makeDefinition();
    const west = makeCluster("west", [makeTopic("east.orders", [{}, {}]), makeTopic("east.heartbeats")]);
    const first = buildFlow(def, makeEast(), west, makeReadings(), T0);
    expect(first.coverage?.missingOnTarget).toEqual([{ topic: "payments", targetTopic: "east.payments", since: T0 }]);
    const second = buildFlow(def, makeEast(), west, makeReadings(), T0 + 10_000, { flow: first, takenAt: T0 });
    expect(second.coverage?.missingOnTarget).toEqual([{ topic: "payments", targetTopic: "east.payments", since: T0 }]);
    const stale = makeCluster("west", [], { reachable: false, stale: true });
    const third = buildFlow(def, makeEast(), stale, makeReadings(), T0 + 20_000, { flow: second, takenAt: T0 + 10_000 });
    expect([third.coverage?.targetKnown, third.coverage?.missingOnTarget]).toEqual([false, [{ topic: "payments", targetTopic: "east.payments", since: T0 }]]);
    const created = makeCluster("west", [...west.topics, makeTopic("east.payments")]);
    const fourth = buildFlow(def, makeEast(), created, makeReadings(), T0 + 30_000, { flow: third, takenAt: T0 + 20_000 });
    expect(fourth.coverage?.missingOnTarget).toEqual([]);
  });

  it("lists the source partitions a remote topic lacks (a partition count increased), since the first cycle seen", () => {
    const def = makeDefinition({ topicsFilter: "orders", topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({ topics: "orders" }) }] });
    const grown = makeCluster("east", [makeTopic("orders", [{}, {}, {}, {}])]);
    const twoOnTarget = makeCluster("west", [makeTopic("east.orders", [{}, {}])]);
    const first = buildFlow(def, grown, twoOnTarget, makeReadings(), T0);
    const expected = [{ topic: "orders", targetTopic: "east.orders", partitions: [2, 3], since: T0 }];
    expect([first.coverage?.missingOnTarget, first.coverage?.partitionsMissingOnTarget]).toEqual([[], expected]);
    const second = buildFlow(def, grown, twoOnTarget, makeReadings(), T0 + 10_000, { flow: first, takenAt: T0 });
    expect(second.coverage?.partitionsMissingOnTarget).toEqual(expected);
    const stale = makeCluster("west", [], { reachable: false, stale: true });
    const third = buildFlow(def, grown, stale, makeReadings(), T0 + 20_000, { flow: second, takenAt: T0 + 10_000 });
    expect(third.coverage?.partitionsMissingOnTarget).toEqual(expected);
    // MM2's topic refresh added them (MirrorSourceConnector.createNewPartitions).
    const followed = makeCluster("west", [makeTopic("east.orders", [{}, {}, {}, {}])]);
    const fourth = buildFlow(def, grown, followed, makeReadings(), T0 + 30_000, { flow: third, takenAt: T0 + 20_000 });
    expect(fourth.coverage?.partitionsMissingOnTarget).toEqual([]);
  });

  it("does not count a remote partition whose offsets could not be read as missing", () => {
    const def = makeDefinition({ topicsFilter: "orders", topicFilters: [{ connector: "mm2-source", spec: readTopicFilter({ topics: "orders" }) }] });
    const unread = makeCluster("west", [makeTopic("east.orders", [{}, { logStart: null, logEnd: null, error: "NOT_LEADER_OR_FOLLOWER" }])]);
    const flow = buildFlow(def, makeCluster("east", [makeTopic("orders", [{}, {}])]), unread, makeReadings(), T0);
    expect(flow.partitions.map((p) => p.targetLogEnd)).toEqual([expect.any(BigInt), null]);
    expect(flow.coverage?.partitionsMissingOnTarget).toEqual([]);
  });

  it("says the filter is unknown for a custom filter class, and reads sync.group.offsets.enabled from the definition", () => {
    const custom = readTopicFilter({ "topic.filter.class": "com.acme.Filter" });
    const def = makeDefinition({ topicFilters: [{ connector: "mm2-source", spec: custom }], syncGroupOffsets: true });
    const flow = buildFlow(def, makeEast(), makeCluster("west"), makeReadings(), T0);
    expect([flow.coverage?.filterKnown, flow.syncGroupOffsets]).toEqual([false, true]);
    expect(buildFlow(makeDefinition(), makeEast(), makeCluster("west"), makeReadings(), T0).syncGroupOffsets).toBeUndefined();
  });
});
