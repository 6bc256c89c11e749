/**
 * The store engine's statements as steps (docs/development.md, "The store engine"): the tables' code is written once,
 * as generators that yield a step and receive its result, and each dialect's runner performs the steps —
 * better-sqlite3 synchronously (a whole write stays one synchronous call: nothing interleaves, no promise per
 * statement), `pg` with await. SQL in a step uses `?` placeholders; the PostgreSQL runner numbers them.
 */

/** A bound value: numbers, text, int64 as bigint or decimal text, bytes (BLOB / BYTEA), a list (Dialect.list). */
export type SqlValue = string | number | bigint | Buffer | null | readonly (string | number)[];

/** A column of a bulk insert with its PostgreSQL type (the unnest parameter's array type; SQLite binds it as is). */
export interface InsertColumn {
  name: string;
  type: "text" | "int" | "smallint" | "bigint" | "bytea" | "numeric";
}

export interface InsertRows {
  kind: "insert";
  table: string;
  columns: readonly InsertColumn[];
  /** Rows in `columns` order, inserted in this order (ids follow it). */
  rows: readonly (readonly SqlValue[])[];
  /** `nothing`: ON CONFLICT DO NOTHING; `{ target, update }`: the update of the columns `update` on `target`. */
  conflict?: "nothing" | { target: readonly string[]; update: readonly string[] };
  /** Columns of the inserted rows to return (RETURNING), in insert order. */
  returning?: readonly string[];
}

export type Step =
  | { kind: "all"; sql: string; params: readonly SqlValue[] }
  | { kind: "run"; sql: string; params: readonly SqlValue[] }
  | InsertRows
  | { kind: "transaction"; body: () => Work<unknown> }
  | { kind: "staged"; table: string; chunks: readonly number[] };

/** A unit of store work: a generator of steps returning T. */
export type Work<T> = Generator<Step, T, unknown>;

/** One staged cycle blob of a chunk (tiered-table.ts), in the order written. */
export interface StagedBlob {
  id: number;
  chunk: number;
  at: number;
  data: Buffer;
}

/** The rows of a query. int8 columns come back as numbers (SQLite) or decimal text (PostgreSQL): read with Number(). */
export function* all<R>(sql: string, params: readonly SqlValue[] = []): Work<R[]> {
  return (yield { kind: "all", sql, params }) as R[];
}

/** Runs a statement; the count of rows it changed. */
export function* run(sql: string, params: readonly SqlValue[] = []): Work<number> {
  return (yield { kind: "run", sql, params }) as number;
}

/** Inserts rows in bulk (one statement per row in SQLite, unnest'ed arrays of 10,000 rows in PostgreSQL). */
export function* insertRows<R = Record<string, unknown>>(insert: Omit<InsertRows, "kind">): Work<R[]> {
  if (insert.rows.length === 0) return [];
  return (yield { kind: "insert", ...insert }) as R[];
}

/** Runs `body` in one transaction (inside another one: part of it, a savepoint in SQLite). */
export function* transaction<T>(body: () => Work<T>): Work<T> {
  return (yield { kind: "transaction", body }) as T;
}

/** The staged blobs of `chunks` by id; PostgreSQL's runner keeps the blobs it read (postgres/staged-blobs.ts). */
export function* readStaged(table: string, chunks: readonly number[]): Work<StagedBlob[]> {
  if (chunks.length === 0) return [];
  return (yield { kind: "staged", table, chunks }) as StagedBlob[];
}
