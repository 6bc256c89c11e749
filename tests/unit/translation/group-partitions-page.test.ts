import { describe, expect, it } from "vitest";
import { buildFailoverPlan, translateFlow } from "@/lib/translation";
import { describeGroup, groupPartitionList, readGroupPageRequest, requireGroup } from "@/lib/views/groups";
import { parsePageRequest } from "@/lib/views/pagination";
import { makeCheckpoint, makeFlow, makeFlowPartition, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

// orders/0..3 and audit/0: syncs for orders/0–2 only, so orders/3 and audit/0 are untranslatable (no sync yet).
const ft = translateFlow({
  flow: makeFlow({
    partitions: [...[0, 1, 2, 3].map((partition) => makeFlowPartition({ partition })), makeFlowPartition({ topic: "audit", partition: 0 })],
    checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 101n)],
  }),
  sourceGroups: [makeGroup("app", { "orders/0": 150n, "orders/1": 130n, "orders/2": 260n, "orders/3": 5n, "audit/0": 9n })],
  syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]), 1: syncs([0, 0], [100, 100]), 2: syncs([0, 0], [250, 250]) }),
  now: T0,
});
const group = requireGroup(ft, "app");
const request = (query: string) => parsePageRequest(new URLSearchParams(query), groupPartitionList);

describe("GET /api/flows/{flow}/groups/{group}: one page of a group's partitions", () => {
  it("walks every partition once by cursor, each page with its own plan rows and the whole plan's totals", () => {
    const seen: string[] = [];
    const planRows: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const body = describeGroup(ft, group, request(`sort=topic&limit=2${cursor ? `&cursor=${cursor}` : ""}`));
      expect(body.partitions.length).toBeLessThanOrEqual(2);
      seen.push(...body.partitions.map((p) => `${p.topic}/${p.partition}`));
      planRows.push(...body.plans.precise.rows.map((r) => `${r.topic}/${r.partition}@${r.offset}`));
      expect(body.page).toMatchObject({ total: 5, matched: 5, sort: "topic", limit: 2 });
      expect(body.plans.mm2.rowCount).toBe(3);
      expect(body.plans.mm2.omittedCount).toBe(2);
      expect(body.plans.mm2.rereadRecords).toBe(buildFailoverPlan(ft.flow, group, "mm2").rereadRecords);
      cursor = body.page.nextCursor;
    }
    expect(seen).toEqual(["audit/0", "orders/0", "orders/1", "orders/2", "orders/3"]);
    expect(planRows).toEqual(buildFailoverPlan(ft.flow, group, "precise").rows.map((r) => `${r.topic}/${r.partition}@${r.offset}`));
  });

  it("puts the largest replay first, partitions MM2 gives nothing for (unknown) before them", () => {
    const body = describeGroup(ft, group, request("limit=5"));
    const replay = body.partitions.map((p) => p.failoverReread?.records ?? null);
    expect(replay.slice(0, 2)).toEqual([null, null]);
    const known = replay.slice(2) as bigint[];
    expect(known).toEqual([...known].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(body.untranslatable.map((u) => `${u.topic}/${u.partition}`)).toEqual(["audit/0", "orders/3"]);
  });

  it("finds one partition by topic/partition and lists only its untranslatable rows and plan omissions", () => {
    const body = describeGroup(ft, group, request("q=orders/3"));
    expect(body.partitions.map((p) => `${p.topic}/${p.partition}`)).toEqual(["orders/3"]);
    expect(body.page).toMatchObject({ total: 5, matched: 1, nextCursor: null });
    expect(body.plans.mm2.rows).toEqual([]);
    expect(body.plans.mm2.omitted.map((o) => `${o.topic}/${o.partition}`)).toEqual(["orders/3"]);
    expect(body.untranslatable).toHaveLength(1);
  });

  it("refuses a bad sort, naming the ones it accepts", () => {
    expect(() => request("sort=reread")).toThrow('query parameter "sort" must be one of "replay", "lag", "topic", got "reread"');
  });

  it("the page falls back to the first page on a bad parameter and says why, keeping good ones", () => {
    expect(readGroupPageRequest({ sort: "lag", q: "orders", range: "1h" })).toEqual({ request: expect.objectContaining({ sort: "lag", q: "orders", after: null, limit: 200 }), problem: null });
    const bad = readGroupPageRequest({ sort: "topic", cursor: "not-a-cursor!" });
    expect(bad.request).toMatchObject({ sort: "replay", q: null, after: null });
    expect(bad.problem).toBe('query parameter "cursor" is not a cursor of this list: pass page.nextCursor of the previous answer unchanged, got "not-a-cursor!"');
  });
});
