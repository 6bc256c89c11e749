import { describe, expect, it } from "vitest";
import { listClusterViews } from "@/lib/views/clusters";
import { makeCluster, makeSnapshot, makeTopic, T0 } from "../detect/fixtures";

describe("listClusterViews", () => {
  it("counts the partitions and groups of a reachable cluster that could not be read this cycle", () => {
    const unread = { groupId: "billing", state: "STABLE", protocolType: "consumer", groupType: "classic", members: 1, offsets: [], error: "OffsetFetch: NOT_COORDINATOR", dataAt: T0 - 10_000 };
    const read = { ...unread, groupId: "audit", error: null, dataAt: T0 };
    const east = makeCluster("east", {
      error: "ListOffsets: broker 2: connect ECONNREFUSED",
      topics: [makeTopic("orders", [{ partition: 0 }, { partition: 1, logStart: null, logEnd: null, error: "ListOffsets: broker 2: connect ECONNREFUSED" }])],
      groups: [unread, read],
    });
    const [view] = listClusterViews(makeSnapshot({ clusters: [east] }), T0);
    expect([view?.unknownPartitions, view?.unknownGroups, view?.groups, view?.topics[0]?.logEndTotal]).toEqual([1, 1, 2, 1000n]);
  });
});
