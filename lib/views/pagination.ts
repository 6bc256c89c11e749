import { BadRequestError } from "@/lib/errors";

/** One part of a row's sort key: counts, bigint offsets, names; null = unknown. */
export type KeyPart = bigint | number | string | null;

/**
 * One sort order of a list: a row's key, compared part by part, each part ascending or descending. The last parts
 * are a tiebreak that makes every row's key unique (topic and partition, an alert's id), so a cursor that keeps
 * the key of a page's last row finds the same place in next cycle's rows, whatever rows came or went.
 */
export interface SortOrder<Row> {
  keyOf(row: Row): readonly KeyPart[];
  directions: readonly ("asc" | "desc")[];
}

/** What a list accepts: its name in cursors, its sort orders, its limits and what `q` may look like. */
export interface ListSpec<S extends string> {
  /** Names the list inside its cursors: a cursor of one list is refused by another. */
  list: string;
  sorts: readonly S[];
  defaultSort: S;
  defaultLimit: number;
  maxLimit: number;
  /** `q` must match `pattern`; `describe` says what it is, for the 400 message. Without it `q` is refused. */
  query?: { pattern: RegExp; describe: string };
}

/** A parsed page request: where to start (the key of the previous page's last row), how many, in which order. */
export interface PageRequest<S extends string> {
  /** The list's name (ListSpec.list), written into the next cursor. */
  list: string;
  limit: number;
  sort: S;
  after: readonly KeyPart[] | null;
  q: string | null;
}

/** The `page` object of every list answer. */
export interface PageInfo {
  limit: number;
  sort: string;
  /** Pass as `cursor` (with the same `sort`) for the next page; null on the last one. */
  nextCursor: string | null;
  /** Rows in the list before `q`. */
  total: number;
  /** Rows matching `q` (all of them without one). */
  matched: number;
}

/** A row with its precomputed sort key (sorting once per cycle, paging many times). */
export interface KeyedRow<Row> {
  row: Row;
  key: readonly KeyPart[];
}

/** Parses `limit`, `sort`, `cursor` and `q`; a bad value is a 400 naming the parameter and what it accepts. */
export function parsePageRequest<S extends string>(params: URLSearchParams, spec: ListSpec<S>): PageRequest<S> {
  const limit = parseLimit(params.get("limit"), spec);
  const rawSort = params.get("sort") ?? "";
  const sort = rawSort === "" ? spec.defaultSort : spec.sorts.find((s) => s === rawSort);
  if (sort === undefined) throw new BadRequestError(`query parameter "sort" must be one of ${quoteAll(spec.sorts)}, got ${quoteInput(rawSort)}`);
  const rawCursor = params.get("cursor");
  const after = rawCursor === null || rawCursor === "" ? null : decodeCursor(rawCursor, spec.list, sort);
  return { list: spec.list, limit, sort, after, q: parseQuery(params.get("q"), spec) };
}

function parseLimit(raw: string | null, spec: ListSpec<string>): number {
  if (raw === null || raw === "") return spec.defaultLimit;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= spec.maxLimit)) {
    throw new BadRequestError(`query parameter "limit" must be an integer from 1 to ${spec.maxLimit} (default ${spec.defaultLimit}), got ${quoteInput(raw)}`);
  }
  return n;
}

function parseQuery(raw: string | null, spec: ListSpec<string>): string | null {
  if (raw === null || raw === "") return null;
  if (!spec.query) throw new BadRequestError(`query parameter "q" is not supported by this list`);
  if (!spec.query.pattern.test(raw)) throw new BadRequestError(`query parameter "q" must be ${spec.query.describe}, got ${quoteInput(raw)}`);
  return raw;
}

const quoteAll = (values: readonly string[]) => values.map((v) => `"${v}"`).join(", ");
/** The caller's value in an error message, cut at 100 characters. */
const quoteInput = (raw: string) => `"${raw.length > 100 ? `${raw.slice(0, 100)}…` : raw}"`;

/** Sorts rows by an order once, keeping each row's key for the cursors and the binary search of later pages. */
export function sortRows<Row>(rows: readonly Row[], order: SortOrder<Row>): KeyedRow<Row>[] {
  const keyed = rows.map((row) => ({ row, key: order.keyOf(row) }));
  return keyed.sort((a, b) => compareKeys(a.key, b.key, order.directions));
}

/** The sorted rows that match (all of them without a matcher), still sorted. */
export function filterRows<Row>(sorted: readonly KeyedRow<Row>[], matches: ((row: Row) => boolean) | null): readonly KeyedRow<Row>[] {
  return matches === null ? sorted : sorted.filter((k) => matches(k.row));
}

/**
 * One page of `candidates` (the sorted rows matching the request's `q`, out of `total` rows): those after the
 * cursor's key, at most `limit`. The cursor of the next page is the key of this page's last row.
 */
export function takePage<Row>(candidates: readonly KeyedRow<Row>[], order: SortOrder<Row>, request: PageRequest<string>, total = candidates.length): { items: Row[]; page: PageInfo } {
  const start = request.after === null ? 0 : findFirstAfter(candidates, request.after, order.directions);
  const slice = candidates.slice(start, start + request.limit);
  const last = slice.at(-1);
  const more = start + slice.length < candidates.length;
  return {
    items: slice.map((k) => k.row),
    page: {
      limit: request.limit,
      sort: request.sort,
      nextCursor: more && last ? encodeCursor(request.list, request.sort, last.key) : null,
      total,
      matched: candidates.length,
    },
  };
}

/** Binary search: the index of the first row whose key sorts after `after`. */
function findFirstAfter<Row>(rows: readonly KeyedRow<Row>[], after: readonly KeyPart[], directions: readonly ("asc" | "desc")[]): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys(rows[mid]!.key, after, directions) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Compares two keys part by part. Unknown (null) parts come first in either direction (an unknown lag is not a
 * healthy one: it leads a list sorted by lag); strings compare by UTF-16 code units, the same on every server.
 */
function compareKeys(a: readonly KeyPart[], b: readonly KeyPart[], directions: readonly ("asc" | "desc")[]): number {
  for (let i = 0; i < directions.length; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    const order = comparePart(x, y);
    if (order !== 0) return directions[i] === "desc" ? -order : order;
  }
  return 0;
}

function comparePart(x: bigint | number | string, y: bigint | number | string): number {
  // A forged cursor can mix types: order them by type name rather than letting JavaScript coerce.
  if (typeof x !== typeof y) return typeof x < typeof y ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Cursors are opaque to callers: base64url of `{l: list, s: sort, k: key}`, bigint parts as "n<digits>" and strings
 * as "s<text>" (JSON has no bigint). Not an index: the key of the last row shown, so pages stay stable across cycles.
 */
function encodeCursor(list: string, sort: string, key: readonly KeyPart[]): string {
  const parts = key.map((p) => (typeof p === "bigint" ? `n${p}` : typeof p === "string" ? `s${p}` : p));
  return Buffer.from(JSON.stringify({ l: list, s: sort, k: parts }), "utf8").toString("base64url");
}

function decodeCursor(raw: string, list: string, sort: string): KeyPart[] {
  const bad = () => new BadRequestError(`query parameter "cursor" is not a cursor of this list: pass page.nextCursor of the previous answer unchanged, got ${quoteInput(raw)}`);
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(raw)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (typeof parsed !== "object" || parsed === null) throw bad();
  const { l, s, k } = parsed as { l?: unknown; s?: unknown; k?: unknown };
  if (l !== list || typeof s !== "string" || !Array.isArray(k)) throw bad();
  if (s !== sort) throw new BadRequestError(`query parameter "cursor" belongs to sort "${s}", not "${sort}": repeat the sort of the request that returned it`);
  return k.map((part: unknown) => {
    if (part === null || (typeof part === "number" && Number.isFinite(part))) return part;
    if (typeof part === "string" && part.startsWith("s")) return part.slice(1);
    if (typeof part === "string" && /^n-?\d{1,20}$/.test(part)) return BigInt(part.slice(1));
    throw bad();
  });
}
