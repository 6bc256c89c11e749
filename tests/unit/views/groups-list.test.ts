import { describe, expect, it } from "vitest";
import { translateFlow } from "@/lib/translation";
import { groupList, listGroupSummaries } from "@/lib/views/groups";
import { parsePageRequest } from "@/lib/views/pagination";
import { makeFlow, makeFlowPartition, makeGroup, makeHistory, syncs, T0 } from "../translation/fixtures";

// 30 partitions of orders; syncs only for orders/0, so every other partition a group commits on is untranslatable.
const partitions = Array.from({ length: 30 }, (_, partition) => makeFlowPartition({ partition }));
const committedOn = (count: number, offset: bigint) => Object.fromEntries(Array.from({ length: count }, (_, p) => [`orders/${p}`, offset]));
const ft = translateFlow({
  flow: makeFlow({ partitions }),
  sourceGroups: [makeGroup("billing", committedOn(30, 9_000n)), makeGroup("Audit", committedOn(2, 9_990n)), makeGroup("app", committedOn(1, 5_000n))],
  syncHistory: makeHistory({ 0: syncs([0, 0], [9_999, 9_999]) }),
  now: T0,
});
const page = (query: string) => listGroupSummaries(ft, parsePageRequest(new URLSearchParams(query), groupList));

describe("listGroupSummaries", () => {
  it("pages groups by name (code-point order) with a cursor", () => {
    const first = page("limit=2");
    expect(first.groups.map((g) => g.group)).toEqual(["Audit", "app"]);
    expect(first.page).toMatchObject({ limit: 2, sort: "group", total: 3, matched: 3 });
    const second = page(`limit=2&cursor=${first.page.nextCursor}`);
    expect(second.groups.map((g) => g.group)).toEqual(["billing"]);
    expect(second.page.nextCursor).toBeNull();
  });

  it("sorts by the group's lag, largest first, and searches group ids in any case", () => {
    // Lag at the source (log end 10,000): billing 30 × 1,000, app 5,000, Audit 2 × 10.
    expect(page("sort=lag").groups.map((g) => [g.group, g.totals.groupLag])).toEqual([
      ["billing", 30_000n],
      ["app", 5_000n],
      ["Audit", 20n],
    ]);
    expect(page("q=AUD").groups.map((g) => g.group)).toEqual(["Audit"]);
  });

  it("lists a group's first 20 untranslatable partitions; its totals count them all", () => {
    const billing = page("q=billing").groups[0]!;
    expect(billing.totals.untranslatable).toBe(29);
    expect(billing.untranslatable.map((u) => u.partition)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
