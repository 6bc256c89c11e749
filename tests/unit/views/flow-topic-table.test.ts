import { describe, expect, it } from "vitest";
import type { TopicRow } from "@/lib/views/flows";
import { defaultTopicTableView, describeTopicTableParams, parseTopicTableView, selectTopicTableRows } from "@/lib/views/flow-topic-table";

function topic(name: string, lag: bigint, internal = false): TopicRow {
  return { topic: name, targetTopic: `east.${name}`, partitions: 3, sourceLogEnd: 100n, targetLogEnd: 100n - lag, lag, unknownPositions: 0, unknownPartitions: 0, internal, lagSeconds: null };
}

const topics = [topic("orders", 40n), topic("payments", 7n), topic("clicks", 40n), topic("heartbeats", 0n, true), topic("audit", 0n)];
const names = (rows: readonly TopicRow[]) => rows.map((r) => r.topic);

describe("parseTopicTableView", () => {
  it("reads the URL's search, order, size and internal choice", () => {
    expect(parseTopicTableView({ q: " pay ", sort: "name", show: "all", internal: "show" })).toEqual({ q: "pay", sort: "name", show: 0, hideInternal: false });
    expect(parseTopicTableView({ show: "100", sort: ["lag-asc", "name"] })).toEqual({ q: "", sort: "lag-asc", show: 100, hideInternal: true });
  });

  it("falls back to the default view for values it does not know, and cuts a search at 249 characters", () => {
    expect(parseTopicTableView({ sort: "size", show: "0", internal: "yes" })).toEqual(defaultTopicTableView);
    expect(parseTopicTableView({ show: "7" }).show).toBe(25);
    expect(parseTopicTableView({ q: "x".repeat(300) }).q).toHaveLength(249);
  });

  it("writes back only what differs from the default, so the default view is the bare URL", () => {
    expect(describeTopicTableParams(defaultTopicTableView)).toEqual({ q: null, sort: null, show: null, internal: null });
    const view = { q: "pay", sort: "name", show: 0, hideInternal: false } as const;
    expect(describeTopicTableParams(view)).toEqual({ q: "pay", sort: "name", show: "all", internal: "show" });
    expect(parseTopicTableView({ q: "pay", sort: "name", show: "all", internal: "show" })).toEqual(view);
  });
});

describe("selectTopicTableRows", () => {
  it("shows the worst lag first by default, ties by name, internal topics hidden", () => {
    const got = selectTopicTableRows(topics, defaultTopicTableView);
    expect(names(got.rows)).toEqual(["clicks", "orders", "payments", "audit"]);
    expect(got).toMatchObject({ matching: 4, total: 5 });
  });

  it("orders by lowest lag or by name, and shows internal topics when asked", () => {
    expect(names(selectTopicTableRows(topics, { ...defaultTopicTableView, sort: "lag-asc", hideInternal: false }).rows)).toEqual(["audit", "heartbeats", "payments", "clicks", "orders"]);
    expect(names(selectTopicTableRows(topics, { ...defaultTopicTableView, sort: "name" }).rows)).toEqual(["audit", "clicks", "orders", "payments"]);
  });

  it("searches source and target names in any case, and counts every match beyond the rows shown", () => {
    const pay = selectTopicTableRows(topics, { ...defaultTopicTableView, q: "PAY" });
    expect(names(pay.rows)).toEqual(["payments"]);
    expect(pay).toMatchObject({ matching: 1, total: 5 });
    const east = selectTopicTableRows(topics, { ...defaultTopicTableView, q: "east.", show: 10 });
    expect(east.matching).toBe(4);
    const many = Array.from({ length: 30 }, (_, i) => topic(`t${String(i).padStart(2, "0")}`, BigInt(i)));
    const top = selectTopicTableRows(many, defaultTopicTableView);
    expect(top.rows).toHaveLength(25);
    expect(top.rows[0]?.topic).toBe("t29");
    expect(top).toMatchObject({ matching: 30, total: 30 });
    expect(selectTopicTableRows(many, { ...defaultTopicTableView, show: 0 }).rows).toHaveLength(30);
  });
});
