import type pg from "pg";
import { inTransaction, redactError } from "../postgres/connection";
import { StagedBlobs } from "../postgres/staged-blobs";
import { renderConflict } from "./sqlite-runner";
import type { InsertRows, SqlValue, Step, Work } from "./steps";

/** Rows per INSERT: a cycle of 100,000 partitions is 10 statements per table, each column one array parameter. */
export const rowsPerStatement = 10_000;

/** Rows → one array per column (unnest's parameters). */
export function transpose(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let c = 0; c < width; c++) columns[c]!.push(row[c]);
  return columns;
}

/**
 * Runs store work on a `pg` pool: steps outside a transaction on the pool (reads), a transaction step on one pooled
 * connection (connection.ts: redacted errors, a broken connection destroyed). `?` placeholders become `$n`.
 */
export class PostgresRunner {
  private readonly numbered = new Map<string, string>();
  /** The staged blobs this process read, per table (they never change: postgres/staged-blobs.ts). */
  private readonly staged = new Map<string, StagedBlobs>();

  constructor(private readonly pool: () => Promise<pg.Pool>) {}

  /** Runs `work`; with `client`, every step on it (the caller's transaction). */
  async run<T>(work: Work<T>, client?: pg.PoolClient): Promise<T> {
    let next = work.next();
    while (!next.done) {
      let result: unknown;
      try {
        result = await this.perform(next.value, client);
      } catch (err) {
        next = work.throw(err);
        continue;
      }
      next = work.next(result);
    }
    return next.value;
  }

  private async perform(step: Step, client: pg.PoolClient | undefined): Promise<unknown> {
    switch (step.kind) {
      case "all":
        return (await this.query(client, step.sql, step.params)).rows;
      case "run":
        return (await this.query(client, step.sql, step.params)).rowCount ?? 0;
      case "insert":
        if (client === undefined) return inTransaction(await this.pool(), (c) => this.insert(c, step));
        return this.insert(client, step);
      case "transaction":
        if (client !== undefined) return this.run(step.body(), client);
        return inTransaction(await this.pool(), (c) => this.run(step.body(), c));
      case "staged": {
        let blobs = this.staged.get(step.table);
        if (blobs === undefined) this.staged.set(step.table, (blobs = new StagedBlobs(step.table)));
        return blobs.read(await this.pool(), step.chunks);
      }
    }
  }

  /** unnest'ed column arrays, WITH ORDINALITY so the rows (and their ids) keep the order given. */
  private async insert(client: pg.PoolClient, step: InsertRows): Promise<unknown[]> {
    const names = step.columns.map((c) => c.name);
    const arrays = step.columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(", ");
    const returning = step.returning ? ` RETURNING ${step.returning.join(", ")}` : "";
    const sql =
      `INSERT INTO ${step.table} (${names.join(", ")}) SELECT ${names.join(", ")} FROM unnest(${arrays}) WITH ORDINALITY ` +
      `AS u(${names.join(", ")}, n) ORDER BY n${renderConflict(step)}${returning}`;
    const returned: unknown[] = [];
    for (let i = 0; i < step.rows.length; i += rowsPerStatement) {
      const values = transpose(step.rows.slice(i, i + rowsPerStatement), names.length);
      returned.push(...(await client.query(sql, values)).rows);
    }
    return returned;
  }

  /** One statement on the caller's transaction, else on the pool; errors come out redacted. */
  private async query(client: pg.PoolClient | undefined, sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    const target = client ?? (await this.pool());
    try {
      return await target.query(this.number(sql), [...params]);
    } catch (err) {
      throw redactError(err);
    }
  }

  /** The SQL with its `?` placeholders numbered `$1`, `$2`, … (no statement here has a `?` in a literal). */
  private number(sql: string): string {
    let numbered = this.numbered.get(sql);
    if (numbered === undefined) {
      let n = 0;
      numbered = sql.replace(/\?/g, () => `$${++n}`);
      this.numbered.set(sql, numbered);
    }
    return numbered;
  }
}
