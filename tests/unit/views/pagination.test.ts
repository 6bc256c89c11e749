import { describe, expect, it } from "vitest";
import { filterRows, parsePageRequest, sortRows, takePage, type ListSpec, type SortOrder } from "@/lib/views/pagination";

/** A partition row as the flow lists sort it: lag (null = unknown), then topic and partition. */
interface Row {
  topic: string;
  partition: number;
  lag: bigint | null;
}

const byLag: SortOrder<Row> = { keyOf: (r) => [r.lag, r.topic, r.partition], directions: ["desc", "asc", "asc"] };
const spec: ListSpec<"lag" | "topic"> = {
  list: "test-partitions",
  sorts: ["lag", "topic"],
  defaultSort: "lag",
  defaultLimit: 3,
  maxLimit: 10,
  query: { pattern: /^[a-z]{1,5}$/, describe: "1–5 lowercase letters" },
};

const row = (topic: string, partition: number, lag: bigint | null): Row => ({ topic, partition, lag });
const names = (rows: Row[]) => rows.map((r) => `${r.topic}/${r.partition}`);
const params = (query: string) => new URLSearchParams(query);

/** One page of `rows` in lag order for a query string (the way a route pages a list). */
function pageOf(rows: Row[], query: string) {
  return takePage(sortRows(rows, byLag), byLag, parsePageRequest(params(query), spec));
}

describe("parsePageRequest", () => {
  it("takes the list's defaults when nothing is given", () => {
    expect(parsePageRequest(params(""), spec)).toEqual({ list: "test-partitions", limit: 3, sort: "lag", after: null, q: null });
    expect(parsePageRequest(params("limit=10&sort=topic&q=abc"), spec)).toEqual({ list: "test-partitions", limit: 10, sort: "topic", after: null, q: "abc" });
  });

  it.each([
    ["limit=0", 'query parameter "limit" must be an integer from 1 to 10 (default 3), got "0"'],
    ["limit=11", 'query parameter "limit" must be an integer from 1 to 10 (default 3), got "11"'],
    ["limit=-1", 'query parameter "limit" must be an integer from 1 to 10 (default 3), got "-1"'],
    ["limit=2.5", 'query parameter "limit" must be an integer from 1 to 10 (default 3), got "2.5"'],
    ["limit=ten", 'query parameter "limit" must be an integer from 1 to 10 (default 3), got "ten"'],
    ["sort=size", 'query parameter "sort" must be one of "lag", "topic", got "size"'],
    ["q=ORDERS", 'query parameter "q" must be 1–5 lowercase letters, got "ORDERS"'],
    ["cursor=%%%", 'query parameter "cursor" is not a cursor of this list: pass page.nextCursor of the previous answer unchanged, got "%%%"'],
    ["cursor=bm90LWpzb24", 'query parameter "cursor" is not a cursor of this list: pass page.nextCursor of the previous answer unchanged, got "bm90LWpzb24"'],
  ])("answers 400 for %s naming the parameter and what it accepts", (query, message) => {
    expect(() => parsePageRequest(params(query), spec)).toThrow(expect.objectContaining({ code: "GW_BAD_REQUEST", message }));
  });

  it("accepts the limit bounds 1 and the maximum", () => {
    expect(parsePageRequest(params("limit=1"), spec).limit).toBe(1);
    expect(parsePageRequest(params("limit=10"), spec).limit).toBe(10);
  });

  it("refuses a cursor of another list, and one issued for another sort", () => {
    const cursor = pageOf([row("a", 0, 5n), row("a", 1, 4n), row("a", 2, 3n), row("a", 3, 2n)], "").page.nextCursor!;
    const other: ListSpec<"lag" | "topic"> = { ...spec, list: "alerts" };
    expect(() => parsePageRequest(params(`cursor=${cursor}`), other)).toThrow(/"cursor" is not a cursor of this list/);
    expect(() => parsePageRequest(params(`cursor=${cursor}&sort=topic`), spec)).toThrow('query parameter "cursor" belongs to sort "lag", not "topic": repeat the sort of the request that returned it');
  });

  it("refuses q on a list that has no search", () => {
    const plain: ListSpec<"lag" | "topic"> = { ...spec, query: undefined };
    expect(() => parsePageRequest(params("q=abc"), plain)).toThrow('query parameter "q" is not supported by this list');
  });
});

describe("takePage", () => {
  const rows = [row("orders", 0, 0n), row("orders", 1, 70n), row("clicks", 3, 70n), row("clicks", 0, null), row("payments", 2, 5n), row("orders", 2, 0n)];

  it("sorts by lag, largest first, unknown lag leading (unknown is not healthy), topic and partition breaking ties", () => {
    expect(names(pageOf(rows, "limit=10").items)).toEqual(["clicks/0", "clicks/3", "orders/1", "payments/2", "orders/0", "orders/2"]);
  });

  it("walks the list page by page with nextCursor until null, every row once", () => {
    const first = pageOf(rows, "limit=4");
    expect(names(first.items)).toEqual(["clicks/0", "clicks/3", "orders/1", "payments/2"]);
    expect(first.page).toMatchObject({ limit: 4, sort: "lag", total: 6, matched: 6 });
    const second = pageOf(rows, `limit=4&cursor=${first.page.nextCursor}`);
    expect(names(second.items)).toEqual(["orders/0", "orders/2"]);
    expect(second.page).toEqual({ limit: 4, sort: "lag", nextCursor: null, total: 6, matched: 6 });
  });

  it("stays stable across cycles: rows inserted or removed before the cursor neither repeat nor hide rows whose lag did not change", () => {
    const cycle1 = [row("t", 0, 90n), row("t", 1, 80n), row("t", 2, 70n), row("t", 3, 60n), row("t", 4, 50n), row("t", 5, 40n)];
    const first = pageOf(cycle1, "limit=3");
    expect(names(first.items)).toEqual(["t/0", "t/1", "t/2"]);
    // Next cycle: t/1 caught up (left the top), a new partition t/9 lags most, t/4 is gone (partition count changed).
    const cycle2 = [row("t", 0, 95n), row("t", 1, 0n), row("t", 2, 70n), row("t", 3, 60n), row("t", 5, 40n), row("t", 9, 500n)];
    const second = pageOf(cycle2, `limit=3&cursor=${first.page.nextCursor}`);
    // After t/2 (70): t/3 (60) and t/5 (40), unchanged, neither skipped nor repeated; then t/1 whose lag fell to 0.
    expect(names(second.items)).toEqual(["t/3", "t/5", "t/1"]);
    expect(second.page).toMatchObject({ nextCursor: null, total: 6, matched: 6 });
  });

  it("continues after a row that is gone: the cursor keeps its key, not its index", () => {
    const first = pageOf([row("a", 0, 9n), row("a", 1, 8n), row("a", 2, 7n), row("a", 3, 6n)], "limit=2");
    const second = pageOf([row("a", 0, 9n), row("a", 2, 7n), row("a", 3, 6n)], `limit=2&cursor=${first.page.nextCursor}`);
    expect(names(second.items)).toEqual(["a/2", "a/3"]);
  });

  it("keeps bigint offsets exact in the cursor (beyond 2^53)", () => {
    const big = [row("a", 0, 9007199254740993n), row("a", 1, 9007199254740992n), row("a", 2, 9007199254740991n)];
    const first = pageOf(big, "limit=1");
    expect(names(pageOf(big, `limit=5&cursor=${first.page.nextCursor}`).items)).toEqual(["a/1", "a/2"]);
  });

  it("counts total and matched when filtered, and pages within the matches", () => {
    const sorted = sortRows(rows, byLag);
    const request = parsePageRequest(params("limit=1"), spec);
    const first = takePage(filterRows(sorted, (r) => r.topic === "orders"), byLag, request, sorted.length);
    expect(names(first.items)).toEqual(["orders/1"]);
    expect(first.page).toMatchObject({ total: 6, matched: 3 });
    const next = parsePageRequest(params(`limit=5&cursor=${first.page.nextCursor}`), spec);
    expect(names(takePage(filterRows(sorted, (r) => r.topic === "orders"), byLag, next, sorted.length).items)).toEqual(["orders/0", "orders/2"]);
  });

  it("orders names by code unit (the same on every server, whatever its locale) and bigints by value", () => {
    const mixed = [row("orders", 0, 10n), row("Orders", 0, 10n), row("_orders", 0, 10n), row("orders", 10, 10n), row("orders", 9, 10n), row("a", 0, 9n)];
    expect(names(pageOf(mixed, "limit=10").items)).toEqual(["Orders/0", "_orders/0", "orders/0", "orders/9", "orders/10", "a/0"]);
  });

  it("cuts a long bad value in the error message", () => {
    expect(() => parsePageRequest(params(`sort=${"x".repeat(300)}`), spec)).toThrow(`got "${"x".repeat(100)}…"`);
  });

  it("answers an empty page with no cursor for an empty list", () => {
    expect(pageOf([], "")).toEqual({ items: [], page: { limit: 3, sort: "lag", nextCursor: null, total: 0, matched: 0 } });
  });
});
