import type { Statement } from "better-sqlite3";
import type { SqliteDb } from "../db";
import type { InsertRows, SqlValue, StagedBlob, Step, Work } from "./steps";

/** Runs store work on better-sqlite3, synchronously: each step as it is yielded, prepared statements cached. */
export class SqliteRunner {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: SqliteDb) {}

  /** Runs `work` to its end and returns its result; a failing step is thrown into the work (its try/catch sees it). */
  run<T>(work: Work<T>): T {
    let next = work.next();
    while (!next.done) {
      let result: unknown;
      try {
        result = this.perform(next.value);
      } catch (err) {
        next = work.throw(err);
        continue;
      }
      next = work.next(result);
    }
    return next.value;
  }

  private perform(step: Step): unknown {
    switch (step.kind) {
      case "all":
        return this.prepare(step.sql).all(...bind(step.params));
      case "run":
        return this.prepare(step.sql).run(...bind(step.params)).changes;
      case "insert":
        return this.insert(step);
      case "transaction":
        // better-sqlite3 makes a nested transaction a savepoint.
        return this.db.transaction(() => this.run(step.body()))();
      case "staged":
        return this.prepare(
          `SELECT id, chunk, at, data FROM ${step.table} WHERE chunk IN (SELECT value FROM json_each(?)) ORDER BY id`,
        ).all(JSON.stringify(step.chunks)) as StagedBlob[];
    }
  }

  /**
   * One prepared statement run per row, in order (SQLite has no array parameters; a statement is cheap here). The
   * returned columns are the row given and its id (`id INTEGER PRIMARY KEY`, the rowid): a RETURNING clause read with
   * better-sqlite3 costs twice as much per row (100,000 new series: +0.4 s).
   */
  private insert(step: InsertRows): unknown[] {
    const columns = step.columns.map((c) => c.name);
    const statement = this.prepare(
      `INSERT INTO ${step.table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})` + renderConflict(step),
    );
    if (!step.returning) {
      // An array binds as the anonymous parameters: no spread of each row into arguments.
      for (const row of step.rows) statement.run(bind(row));
      return [];
    }
    const picks = step.returning.map((name) => {
      const at = columns.indexOf(name);
      if (at < 0 && name !== "id") {
        throw new Error(`insert into ${step.table} returns ${name}: neither a column given nor the id`);
      }
      return { name, at };
    });
    const returned: Record<string, unknown>[] = [];
    for (const row of step.rows) {
      const { changes, lastInsertRowid } = statement.run(bind(row));
      if (changes === 0) continue;
      const out: Record<string, unknown> = {};
      for (const p of picks) out[p.name] = p.at < 0 ? Number(lastInsertRowid) : row[p.at];
      returned.push(out);
    }
    return returned;
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }
}

/** The ON CONFLICT clause of an insert (the same text in both dialects). */
export function renderConflict(step: Pick<InsertRows, "conflict">): string {
  if (step.conflict === undefined) return "";
  if (step.conflict === "nothing") return " ON CONFLICT DO NOTHING";
  const sets = step.conflict.update.map((c) => `${c} = excluded.${c}`).join(", ");
  return ` ON CONFLICT (${step.conflict.target.join(", ")}) DO UPDATE SET ${sets}`;
}

/** The parameters as better-sqlite3 takes them (a list is bound as Dialect.list made it: JSON text). */
function bind(params: readonly SqlValue[]): unknown[] {
  return params as unknown[];
}
