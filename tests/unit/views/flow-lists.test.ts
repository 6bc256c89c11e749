import { describe, expect, it } from "vitest";
import type { FlowPartition } from "@/lib/collector/types";
import { flowPartitionList, flowTopicList, listCheckpointsOf, pageFlowPartitions, pageFlowTopics } from "@/lib/views/flow-lists";
import { parsePageRequest } from "@/lib/views/pagination";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

/** orders/0–2, payments/0–1 and east's heartbeats: lags 0–700, one unknown, ages of the oldest unreplicated record. */
function makeSmallFlow() {
  const p = (topic: string, partition: number, lag: bigint | null, ageMs: number | null, more: Partial<FlowPartition> = {}) =>
    makeFlowPartition({
      topic,
      partition,
      targetTopic: `east.${topic}`,
      sourceLogEnd: 1000n,
      mm2Position: lag === null ? null : 1000n - lag,
      lag,
      oldestUnreplicatedTimestamp: ageMs === null ? null : T0 - ageMs,
      ...more,
    });
  return makeFlow({
    partitions: [
      p("heartbeats", 0, 0n, null),
      p("orders", 0, 700n, 12_000),
      p("orders", 1, 0n, null),
      p("orders", 2, 30n, 95_000),
      p("payments", 0, null, null, { unknown: { reason: "ListOffsets at west failed", dataAt: T0 - 20_000 } }),
      p("payments", 1, 700n, null),
    ],
    checkpoints: [
      { group: "billing", topic: "orders", partition: 2, upstream: 960n, downstream: 960n, at: T0 - 5000 },
      { group: "audit", topic: "orders", partition: 2, upstream: 900n, downstream: 900n, at: T0 - 5000 },
      { group: "billing", topic: "payments", partition: 0, upstream: 10n, downstream: 10n, at: T0 - 5000 },
    ],
  });
}

const request = (query: string, spec = flowPartitionList) => parsePageRequest(new URLSearchParams(query), spec);
const partitionsOf = (query: string) => {
  const flow = makeSmallFlow();
  return pageFlowPartitions(makeSnapshot({ flows: [flow] }), flow, request(query));
};
const names = (rows: { topic: string; partition: number }[]) => rows.map((r) => `${r.topic}/${r.partition}`);

describe("pageFlowPartitions", () => {
  it("sorts by lag by default: unknown first, then largest, topic and partition breaking ties", () => {
    const { items, page } = partitionsOf("");
    expect(names(items)).toEqual(["payments/0", "orders/0", "payments/1", "orders/2", "heartbeats/0", "orders/1"]);
    expect(page).toEqual({ limit: 100, sort: "lag", nextCursor: null, total: 6, matched: 6 });
  });

  it("sorts by the age of the oldest unreplicated record (lagSeconds), unknown ages first", () => {
    const { items } = partitionsOf("sort=lagSeconds");
    expect(items.map((r) => [`${r.topic}/${r.partition}`, r.lagSeconds])).toEqual([
      ["payments/0", null],
      ["payments/1", null],
      ["orders/2", 95],
      ["orders/0", 12],
      ["heartbeats/0", 0],
      ["orders/1", 0],
    ]);
  });

  it("sorts by topic and partition", () => {
    expect(names(partitionsOf("sort=topic").items)).toEqual(["heartbeats/0", "orders/0", "orders/1", "orders/2", "payments/0", "payments/1"]);
  });

  it("searches topic names (source or target, any case) and topic/partition", () => {
    expect(names(partitionsOf("q=ORD").items)).toEqual(["orders/0", "orders/2", "orders/1"]);
    expect(names(partitionsOf("q=east.pay").items)).toEqual(["payments/0", "payments/1"]);
    const one = partitionsOf("q=orders/2");
    expect(names(one.items)).toEqual(["orders/2"]);
    expect(one.page).toMatchObject({ total: 6, matched: 1 });
    expect(partitionsOf("q=nothing").page).toEqual({ limit: 100, sort: "lag", nextCursor: null, total: 6, matched: 0 });
  });

  it("pages a search with the same cursor rules", () => {
    const first = partitionsOf("q=orders&limit=2");
    expect(names(first.items)).toEqual(["orders/0", "orders/2"]);
    expect(names(partitionsOf(`q=orders&limit=2&cursor=${first.page.nextCursor}`).items)).toEqual(["orders/1"]);
  });
});

describe("pageFlowTopics", () => {
  const topicsOf = (query: string) => {
    const flow = makeSmallFlow();
    return pageFlowTopics(makeSnapshot({ flows: [flow] }), flow, request(query, flowTopicList));
  };

  it("sorts topics by summed lag (unknown partitions add nothing), name breaking ties; lagSeconds is the oldest known age", () => {
    const { items, page } = topicsOf("");
    expect(items.map((t) => [t.topic, t.lag, t.lagSeconds, t.unknownPositions])).toEqual([
      ["orders", 730n, 95, 0],
      ["payments", 700n, null, 1],
      ["heartbeats", 0n, 0, 0],
    ]);
    expect(page).toEqual({ limit: 50, sort: "lag", nextCursor: null, total: 3, matched: 3 });
  });

  it("keeps the topics that have the partition a topic/partition search names", () => {
    expect(topicsOf("q=s/1").items.map((t) => t.topic)).toEqual(["orders", "payments"]);
    expect(topicsOf("q=s/2").items.map((t) => t.topic)).toEqual(["orders"]);
  });
});

describe("listCheckpointsOf", () => {
  it("lists every group's latest checkpoint of the given partitions only", () => {
    const flow = makeSmallFlow();
    const snapshot = makeSnapshot({ flows: [flow] });
    expect(listCheckpointsOf(snapshot, flow, [{ topic: "orders", partition: 2 }, { topic: "orders", partition: 0 }]).map((c) => [c.group, c.upstream])).toEqual([
      ["billing", 960n],
      ["audit", 900n],
    ]);
  });
});
