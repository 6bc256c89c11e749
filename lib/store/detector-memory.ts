import type { Dialect } from "./engine/dialect";
import { all, insertRows, run, transaction, type Work } from "./engine/steps";
import type { DetectorMemoryEntryChange } from "./types";

/** Keys per DELETE: a list is one parameter. */
const keysPerDelete = 10_000;

/** Applies one cycle's detector memory changes (lib/detect/memory-persistence.ts) in one transaction. */
export function* saveDetectorMemoryEntries(dialect: Dialect, changes: readonly DetectorMemoryEntryChange[]): Work<void> {
  if (changes.length === 0) return;
  // The last change of a key wins (an upsert may not touch one row twice in a PostgreSQL statement).
  const last = new Map(changes.map((c) => [c.key, c.value]));
  const upserts = [...last].filter((e): e is [string, string] => e[1] !== null);
  const deletes = [...last].filter(([, value]) => value === null).map(([key]) => key);
  yield* transaction(function* () {
    for (let i = 0; i < deletes.length; i += keysPerDelete) {
      yield* run(`DELETE FROM detector_memory WHERE ${dialect.inList("key", "text")}`, [dialect.list(deletes.slice(i, i + keysPerDelete))]);
    }
    yield* insertRows({
      table: "detector_memory",
      columns: [{ name: "key", type: "text" }, { name: "value", type: "text" }],
      rows: upserts,
      conflict: { target: ["key"], update: ["value"] },
    });
  });
}

/** The stored entries whose key starts with `prefix` (every entry without one), as [key, JSON value]. */
export function* loadDetectorMemoryEntries(dialect: Dialect, prefix?: string): Work<[string, string][]> {
  const where = prefix === undefined ? null : dialect.startsWith("key", prefix);
  const rows = yield* all<{ key: string; value: string }>(
    `SELECT key, value FROM detector_memory${where === null ? "" : ` WHERE ${where.sql}`}`,
    where?.params ?? [],
  );
  return rows.map((r) => [r.key, r.value]);
}
