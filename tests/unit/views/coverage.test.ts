import { describe, expect, it } from "vitest";
import { coverageList, pageFlowCoverage, readFlowCoverage } from "@/lib/views/coverage";
import { parsePageRequest } from "@/lib/views/pagination";
import { makeCluster, makeFlow, makeFlowPartition, makeSnapshot, makeTopic, makeTopicConfigs, T0 } from "../detect/fixtures";

/**
 * east->west as the collector reads it with `topics = orders|payments|clicks`: orders copied with a shorter target
 * retention, payments copied and alike, clicks matched but not created on west yet, audit left out, MM2's syncs internal.
 */
function makeCoverageSnapshot() {
  const east = makeCluster("east", {
    topics: [makeTopic("orders", [{ partition: 0 }, { partition: 1 }]), makeTopic("payments", [{ partition: 0 }]), makeTopic("clicks", [{ partition: 0 }]), makeTopic("audit")],
  });
  const west = makeCluster("west", {
    topics: [makeTopic("east.orders", [{ partition: 0 }, { partition: 1 }], { configs: makeTopicConfigs({ retentionMs: 3_600_000n }) }), makeTopic("east.payments", [{ partition: 0 }])],
  });
  const partitions = [
    makeFlowPartition({ topic: "clicks", partition: 0, targetTopic: "east.clicks" }),
    makeFlowPartition({ topic: "orders", partition: 0, targetTopic: "east.orders" }),
    makeFlowPartition({ topic: "orders", partition: 1, targetTopic: "east.orders" }),
    makeFlowPartition({ topic: "payments", partition: 0, targetTopic: "east.payments" }),
  ];
  const coverage = {
    filterKnown: true,
    matchedByFilter: 3,
    unmatched: [
      { topic: "audit", reason: "not matched by topics", internal: false },
      { topic: "mm2-offset-syncs.west.internal", reason: "an internal topic for the replication policy", internal: true },
    ],
    missingOnTarget: [{ topic: "clicks", targetTopic: "east.clicks", since: T0 - 60_000 }],
    targetKnown: true,
  };
  return makeSnapshot({ clusters: [east, west], flows: [makeFlow({ topicsFilter: "orders|payments|clicks", partitions, coverage })] });
}

describe("readFlowCoverage", () => {
  it("gives every source topic its status, the rule or the drift behind it, and the counts", () => {
    const snapshot = makeCoverageSnapshot();
    const coverage = readFlowCoverage(snapshot, snapshot.flows[0]!);
    expect([coverage.filter, coverage.known, coverage.counts]).toEqual([
      { topics: "orders|payments|clicks", known: true },
      true,
      { "missing-on-target": 1, replicated: 2, "not-matched": 1, internal: 1, drifted: 1 },
    ]);
    expect(coverage.rows.map((r) => [r.topic, r.status, r.targetTopic, r.reason, r.missingSince, r.weaker])).toEqual([
      ["clicks", "missing-on-target", "east.clicks", null, T0 - 60_000, []],
      ["orders", "replicated", "east.orders", null, null, ["retention.ms"]],
      ["payments", "replicated", "east.payments", null, null, []],
      ["audit", "not-matched", null, "not matched by topics", null, []],
      ["mm2-offset-syncs.west.internal", "internal", null, "an internal topic for the replication policy", null, []],
    ]);
    expect(coverage.rows[1]!.settings.find((s) => s.setting === "retention.ms")).toEqual({ setting: "retention.ms", source: "604800000", target: "3600000", weaker: true });
  });

  it("pages by status (missing, then drifted, then the rest) with a cursor, and filters by topic", () => {
    const snapshot = makeCoverageSnapshot();
    const flow = snapshot.flows[0]!;
    const first = pageFlowCoverage(snapshot, flow, parsePageRequest(new URLSearchParams("limit=2"), coverageList));
    expect([first.items.map((r) => r.topic), first.page.total, first.counts.replicated]).toEqual([["clicks", "orders"], 5, 2]);
    const next = pageFlowCoverage(snapshot, flow, parsePageRequest(new URLSearchParams(`limit=2&cursor=${first.page.nextCursor}`), coverageList));
    expect([next.items.map((r) => r.topic), next.page.nextCursor !== null]).toEqual([["payments", "audit"], true]);
    const found = pageFlowCoverage(snapshot, flow, parsePageRequest(new URLSearchParams("q=pay&sort=topic"), coverageList));
    expect([found.items.map((r) => r.topic), found.page.matched]).toEqual([["payments"], 1]);
  });

  it("lists the flow's partitions as replicated or missing, and nothing else, before coverage was read", () => {
    const snapshot = makeSnapshot();
    const coverage = readFlowCoverage(snapshot, snapshot.flows[0]!);
    expect([coverage.known, coverage.filter.known, coverage.rows.map((r) => [r.topic, r.status])]).toEqual([false, false, [["orders", "missing-on-target"]]]);
  });
});
