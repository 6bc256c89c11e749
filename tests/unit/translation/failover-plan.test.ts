import { describe, expect, it } from "vitest";
import { buildFailoverPlan, formatResetCsv, parseResetCsv, translateFlow, type GroupTranslation } from "@/lib/translation";
import { FLOW, makeCheckpoint, makeFlow, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

/** Group "app": orders/0 exact (150), orders/1 in an upstream gap (200), orders/2 without syncs, orders/3 rewound epoch. */
function makeApp(): GroupTranslation {
  const ft = translateFlow({
    flow: makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 101n), makeCheckpoint("app", "orders", 3, 20n, 20n)] }),
    sourceGroups: [makeGroup("app", { "orders/0": 150n, "orders/1": 200n, "orders/2": 7n, "orders/3": 20n })],
    syncHistory: new Map([
      ...makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]), 1: syncs([0, 0], [100, 100], [300, 150]) }),
      // orders/3: upstream rewound to 50 (topic reset): a new epoch starts at (50, 300).
      ...makeHistory({ 3: syncs([0, 0], [100, 100], [50, 300]) }),
    ]),
    now: T0,
  });
  return ft.groups[0]!;
}

describe("buildFailoverPlan", () => {
  it("mm2 mode: the latest real checkpoint, else the model's translation; untranslatable partitions are left out", () => {
    const plan = buildFailoverPlan(FLOW, makeApp(), "mm2");
    expect(plan.rows.map((r) => [r.topic, r.partition, r.offset, r.source])).toEqual([
      ["east.orders", 0, 101n, "checkpoint"],
      ["east.orders", 1, 1n, "model"],
      ["east.orders", 3, 20n, "checkpoint"],
    ]);
    expect(plan.omitted).toEqual([{ topic: "orders", partition: 2, reason: "MM2 has written no offset sync for orders/2 yet" }]);
    expect(plan.rereadRecords).toBe(49n + 149n);
  });

  it("precise mode: exact where provable, the bracket's LOW bound otherwise (never skips), MM2's value where nothing is provable", () => {
    const plan = buildFailoverPlan(FLOW, makeApp(), "precise");
    expect(plan.rows.map((r) => [r.topic, r.partition, r.offset, r.source, r.rereadRecords])).toEqual([
      ["east.orders", 0, 150n, "exact", 0n],
      ["east.orders", 1, 101n, "bracket-low", 49n],
      ["east.orders", 3, 20n, "checkpoint", null],
    ]);
    expect(plan.rereadRecords).toBe(49n);
  });
});

describe("the reset CSV", () => {
  it("is exactly `topic,partition,offset` lines ending in LF: no header, no comments, no CR", () => {
    const csv = formatResetCsv(buildFailoverPlan(FLOW, makeApp(), "precise").rows);
    expect(csv).toBe("east.orders,0,150\neast.orders,1,101\neast.orders,3,20\n");
    expect(csv).not.toMatch(/#|\r|^topic/m);
    expect(parseResetCsv(csv)).toEqual([
      { topic: "east.orders", partition: 0, offset: 150n },
      { topic: "east.orders", partition: 1, offset: 101n },
      { topic: "east.orders", partition: 3, offset: 20n },
    ]);
  });

  it("writes int64 offsets exactly", () => {
    expect(formatResetCsv([{ topic: "t", partition: 0, offset: 9007199254740993n }])).toBe("t,0,9007199254740993\n");
  });

  it("refuses what Kafka's parser would choke on", () => {
    expect(() => formatResetCsv([{ topic: "a,b", partition: 0, offset: 1n }])).toThrow(/legal Kafka topic/);
    expect(() => formatResetCsv([{ topic: "a", partition: 0, offset: -1n }])).toThrow(/negative/);
    expect(() => parseResetCsv("# comment\nt,0,1\n")).toThrow(/line 1/);
    expect(() => parseResetCsv("t,0,1\r\n")).toThrow(/line 1/);
  });
});
