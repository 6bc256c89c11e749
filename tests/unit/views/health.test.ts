import { describe, expect, it } from "vitest";
import { assessHealth } from "@/lib/views/health";
import { makeCluster, makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

const now = T0 + 5_000;

describe("assessHealth", () => {
  it("is ok when every cluster, group and partition was read this cycle", () => {
    const health = assessHealth(makeSnapshot(), now);
    expect([health.status, health.flows, health.clusters.map((c) => c.unknownGroups)]).toEqual(["ok", [{ id: "east->west", partitions: 1, partial: null }], [0, 0]]);
  });

  it("is degraded when its cycle finished more than the allowed age ago, and says so", () => {
    // The cycle started at T0 and finished 2 s later: the age counts from its end, as readiness counts it.
    const at = (ms: number) => assessHealth(makeSnapshot(), T0 + 2_000 + ms, {}, { maxAgeMs: 30_000, finishedAt: T0 + 2_000 });
    expect([at(30_000).status, at(30_000).stale, at(30_001).status]).toEqual(["ok", null, "degraded"]);
    expect(at(45_000).stale).toBe(
      "cycle 1 finished 45 s ago, more than 3 poll intervals (30 s): the collector is stuck or stopped; every figure here is that old; see its log",
    );
  });

  it("is degraded and says which partitions are unknown, why, and since when", () => {
    const reason = "west east.orders/2: ListOffsets: broker 2: connect ECONNREFUSED";
    const snapshot = makeSnapshot({ flows: [makeFlow({ partitions: [makeFlowPartition({ targetLogEnd: null, unknown: { reason, dataAt: T0 - 20_000 } })] })] });
    const health = assessHealth(snapshot, now);
    expect(health.status).toBe("degraded");
    expect(health.flows).toEqual([{ id: "east->west", partitions: 1, partial: { unknownPartitions: 1, reasons: [reason], moreReasons: 0, dataAgeMs: 20_000 } }]);
  });

  it("is degraded when a group's offsets could not be read", () => {
    const billing = { groupId: "billing", state: "STABLE", protocolType: "consumer", groupType: "classic", members: 1, offsets: [], error: "OffsetFetch: NOT_COORDINATOR", dataAt: T0 - 10_000 };
    const health = assessHealth(makeSnapshot({ clusters: [makeCluster("east", { groups: [billing] }), makeCluster("west")] }), now);
    expect([health.status, health.clusters.map((c) => [c.alias, c.unknownGroups])]).toEqual([
      "degraded",
      [
        ["east", 1],
        ["west", 0],
      ],
    ]);
  });

  it("is degraded by a blind spot, and names it with the fix for the configured principal", () => {
    const east = makeCluster("east", { denied: [{ api: "DescribeConfigs", resourceType: "topic", resource: "orders", error: "TOPIC_AUTHORIZATION_FAILED" }] });
    const health = assessHealth(makeSnapshot({ clusters: [east, makeCluster("west")] }), now, { east: "User:gapwatch" });
    expect(health.status).toBe("degraded");
    expect(health.blindSpots.map((b) => [b.cluster, b.kind, b.resources, b.fix])).toEqual([
      ["east", "topic-configs", ["orders"], "kafka-acls.sh --bootstrap-server east:9092 --add --allow-principal User:gapwatch --operation DescribeConfigs --topic '*'"],
    ]);
    expect(assessHealth(makeSnapshot(), now).blindSpots).toEqual([]);
  });
});
