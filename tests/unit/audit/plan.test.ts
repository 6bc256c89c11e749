import { describe, expect, it } from "vitest";
import { createAuditCursors, planAudit } from "@/lib/audit";
import { flowPartitionKey } from "@/lib/collector/types";
import { makeFlow, makeFlowPartition } from "../detect/fixtures";

const FLOW = "east->west";
const syncs = [
  { upstream: 0n, downstream: 0n },
  { upstream: 500n, downstream: 500n },
];
const partitions = [0, 1, 2].map((partition) => makeFlowPartition({ partition }));
const history = new Map(partitions.map((p) => [flowPartitionKey(FLOW, p.topic, p.partition), syncs]));
const describeWindows = (plans: ReturnType<typeof planAudit>) => plans.flatMap((p) => p.windows.map((w) => `${w.topic}/${w.partition} ${w.from}+${w.count} ${w.reason}`));
const input = (overrides: Partial<Parameters<typeof planAudit>[0]> = {}) => ({ flows: [makeFlow({ partitions })], syncs: history, focus: new Map(), budget: 30, exclude: [], ...overrides });

describe("planAudit", () => {
  it("spends the budget on partitions in round-robin order, 20 records a window, and goes on next cycle where it stopped", () => {
    const cursors = createAuditCursors();
    expect(describeWindows(planAudit(input(), cursors))).toEqual(["orders/0 490+20 offset-sync", "orders/1 495+10 offset-sync"]);
    expect(describeWindows(planAudit(input(), cursors))).toEqual(["orders/2 490+20 offset-sync", "orders/0 0+10 cursor"]);
    expect(describeWindows(planAudit(input(), cursors))).toEqual(["orders/1 0+20 cursor", "orders/2 0+10 cursor"]);
  });

  it("walks the replicated range and wraps at MM2's position; a new offset sync is audited around on the next sync turn", () => {
    const one = [makeFlowPartition({ partition: 0, mm2Position: 530n, sourceLogEnd: 530n })];
    const cursors = createAuditCursors();
    const run = (s = history) => describeWindows(planAudit(input({ flows: [makeFlow({ partitions: one })], syncs: s, budget: 20 }), cursors));
    expect([run(), run(), run(), run()]).toEqual([["orders/0 490+20 offset-sync"], ["orders/0 0+20 cursor"], ["orders/0 20+20 cursor"], ["orders/0 40+20 cursor"]]);
    const newer = new Map([[flowPartitionKey(FLOW, "orders", 0), [...syncs, { upstream: 520n, downstream: 520n }]]]);
    expect([run(newer), run(newer)]).toEqual([["orders/0 510+20 offset-sync"], ["orders/0 60+20 cursor"]]);
  });

  it("audits around each open finding's offsets first, once", () => {
    const cursors = createAuditCursors();
    const focus = new Map([[flowPartitionKey(FLOW, "orders", 0), [300n, 2000n]]]);
    const plan = () => describeWindows(planAudit(input({ flows: [makeFlow({ partitions: [partitions[0]!] })], focus, budget: 20 }), cursors));
    // 2000 is beyond MM2's position (1000): nothing there is copied yet.
    expect([plan(), plan()]).toEqual([["orders/0 290+20 finding"], ["orders/0 0+20 cursor"]]);
  });

  it("stops sampling a recreated topic until MM2 starts a new epoch, and a log that ends below the newest sync", () => {
    const cursors = createAuditCursors();
    const run = (p: ReturnType<typeof makeFlowPartition>, s: typeof syncs) =>
      describeWindows(planAudit(input({ flows: [makeFlow({ partitions: [p] })], syncs: new Map([[flowPartitionKey(FLOW, "orders", 2), s]]), budget: 20 }), cursors));
    expect(run(makeFlowPartition(), syncs)).toEqual(["orders/2 490+20 offset-sync"]);
    // Recreated: new topic ID, 800 new records; the syncs still describe the old topic.
    const recreated = makeFlowPartition({ sourceTopicId: "id-2", sourceLogEnd: 800n, mm2Position: 800n });
    expect(run(recreated, syncs)).toEqual([]);
    expect(run(recreated, syncs)).toEqual([]);
    // MM2 copied from the new topic: a rewind sync starts the new epoch at (0, 1000).
    expect(run(recreated, [...syncs, { upstream: 0n, downstream: 1000n }, { upstream: 100n, downstream: 1100n }])).toEqual(["orders/2 0+20 cursor"]);
    expect(run(makeFlowPartition({ sourceTopicId: "id-2", sourceLogEnd: 400n, mm2Position: 400n }), syncs)).toEqual([]);
  });

  it("skips excluded topics, unknown partitions, partitions without syncs or copied records, and a partition another flow took", () => {
    const mixed = [
      makeFlowPartition({ topic: "audit-logs", partition: 0 }),
      makeFlowPartition({ partition: 1, unknown: { reason: "west ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: null } }),
      makeFlowPartition({ partition: 2, mm2Position: 0n }),
      makeFlowPartition({ partition: 3 }),
      makeFlowPartition({ partition: 0 }),
    ];
    const syncHistory = new Map([...[0, 1, 2].map((p) => [flowPartitionKey(FLOW, "orders", p), syncs] as const), [flowPartitionKey(FLOW, "audit-logs", 0), syncs]]);
    const twice = [makeFlow({ partitions: mixed }), makeFlow({ id: "east->north", target: "north", partitions: [makeFlowPartition({ partition: 0 })] })];
    const plans = planAudit(input({ flows: twice, syncs: new Map([...syncHistory, [flowPartitionKey("east->north", "orders", 0), syncs]]), exclude: [/^(?:audit-.*)$/], budget: 100 }), createAuditCursors());
    expect(describeWindows(plans)).toEqual(["orders/0 490+20 offset-sync"]);
    expect(plans.map((p) => p.flow)).toEqual([FLOW]);
  });

  it("reads a partition listed twice from each listing (the flow's columns hold the last one's): each sampled once", () => {
    const unknown = { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: null };
    const listed = [
      makeFlowPartition({ partition: 0, unknown }),
      makeFlowPartition({ partition: 1 }),
      makeFlowPartition({ partition: 0 }),
      makeFlowPartition({ partition: 1, mm2Position: null }),
    ];
    const plans = planAudit(input({ flows: [makeFlow({ partitions: listed })], budget: 100 }), createAuditCursors());
    expect(describeWindows(plans)).toEqual(["orders/1 490+20 offset-sync", "orders/0 490+20 offset-sync"]);
  });
});
