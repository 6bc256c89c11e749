import type { SqlValue } from "./steps";

/**
 * The SQL text that differs between the dialects, each difference in one place. Everything else (ON CONFLICT upserts,
 * RETURNING, `DELETE … AS alias`, subqueries) is written once in the SQL both accept.
 */
export interface Dialect {
  name: "sqlite" | "postgres";
  /** `column` is one of the values of one bound list parameter (bind `list(values)`). */
  inList(column: string, type: "int" | "bigint" | "text"): string;
  /** A list as one parameter of inList: a JSON array for SQLite's json_each, an array for PostgreSQL's ANY. */
  list(values: readonly (string | number)[]): SqlValue;
  /** The larger of two values, a NULL one ignored. */
  greatest(a: string, b: string): string;
  /** `column` starts with `prefix`, character by character (never the collation's order). */
  startsWith(column: string, prefix: string): { sql: string; params: SqlValue[] };
  /** `(columns) IN` the rows given, as SQL and its parameters. */
  matchRows(
    columns: readonly string[],
    types: readonly string[],
    rows: readonly (readonly (string | number)[])[],
  ): { sql: string; params: SqlValue[] };
}

export const sqliteDialect: Dialect = {
  name: "sqlite",
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  list: (values) => JSON.stringify(values),
  greatest: (a, b) => `MAX(IFNULL(${a}, 0), ${b})`,
  // substr counts characters as SQLite stores them: the prefix's own length, measured by SQLite.
  startsWith: (column, prefix) => ({ sql: `substr(${column}, 1, length(?)) = ?`, params: [prefix, prefix] }),
  matchRows: (columns, _types, rows) => ({
    sql: `(${columns.join(", ")}) IN (SELECT ${columns.map((_, i) => `value ->> ${i}`).join(", ")} FROM json_each(?))`,
    params: [JSON.stringify(rows)],
  }),
};

export const postgresDialect: Dialect = {
  name: "postgres",
  inList: (column, type) => `${column} = ANY(?::${type}[])`,
  list: (values) => values,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  startsWith: (column, prefix) => ({ sql: `starts_with(${column}, ?)`, params: [prefix] }),
  matchRows: (columns, types, rows) => ({
    sql: `(${columns.join(", ")}) IN (SELECT * FROM unnest(${types.map((t) => `?::${t}[]`).join(", ")}))`,
    params: columns.map((_, c) => rows.map((r) => r[c]!)),
  }),
};
