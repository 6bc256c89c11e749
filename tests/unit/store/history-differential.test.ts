import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createAlertService } from "@/lib/alerts/alert-service";
import type { Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { createSqliteStore } from "@/lib/store";
import { readSnapshotFixture } from "@/scripts/bench/snapshot-fixture";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "@/scripts/bench/synthetic-world";

/**
 * The history writes' rows, before and after a rewrite of how they are built (issue 32): the real pipeline over the
 * synthetic world at 2,000 partitions for 80 cycles (5 s apart: closed 5-minute buckets are packed, two prunes), the
 * store closed and opened again at cycle 40 (a restart writes every series again), then every history table's rows
 * hashed. The expected hashes were made by the code of main 17554bb (before the rewrite): any change in what is
 * stored, or in the order it is written, changes them.
 */
const expected: Record<string, string> = {
  partition_packs: "4004 a6b27e4c93057936",
  partition_series: "2002 b63aab90a4efaed6",
  partition_staged: "14 f8cefb5d7d4e6bf7",
  series_state: "2 97f53028675f85db",
  topic_hours: "364 b7fb7246ea2afcef",
  translation_packs: "7644 5589b969ebe5806c",
  translation_series: "3822 ff766e1bc103112d",
  translation_staged: "28 7ce548821d5a1144",
};

const tables = [
  ["partition_series", "id"],
  ["partition_staged", "id"],
  ["partition_packs", "tier, bucket, series"],
  ["translation_series", "id"],
  ["translation_staged", "id"],
  ["translation_packs", "tier, bucket, series"],
  ["topic_hours", "flow, topic, hour"],
  ["series_state", "points"],
] as const;

const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-history-differential-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each table's row count and the sha256 of its rows in primary-key order (blobs as hex). */
function hashTables(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const hashes: Record<string, string> = {};
    for (const [table, order] of tables) {
      const hash = createHash("sha256");
      const rows = db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).raw().all() as unknown[][];
      for (const row of rows) hash.update(JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? v.toString("hex") : v))) + "\n");
      hashes[table] = `${rows.length} ${hash.digest("hex").slice(0, 16)}`;
    }
    return hashes;
  } finally {
    db.close();
  }
}

describe("the history tables after 80 cycles at 2,000 partitions", () => {
  it("hold exactly the rows the code before the rewrite wrote", async () => {
    const fixture = readSnapshotFixture();
    const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, "east->west", 2_000);
    const file = path.join(dir, "gapwatch.db");
    const config = configSchema.parse({
      clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
      pollIntervalSeconds: cycleMs / 1000,
      store: { kind: "sqlite" },
    });
    let previous: Snapshot | null = null;
    for (const [from, to] of [[1, 40], [41, 80]] as const) {
      const store = createSqliteStore(file);
      const alerts = createAlertService(store, config);
      const pipeline = new CyclePipeline(config, store, alerts);
      for (let c = from; c <= to; c++) {
        const current = snapshotCycle(world, c, world.base.takenAt + c * cycleMs, previous);
        await pipeline.processCycle(current, previous, { offsetSyncs: world.syncs });
        previous = current;
      }
      alerts.stop();
      await store.close();
    }
    const hashes = hashTables(file);
    // Every table was written (packs: 5-minute buckets closed; staged: the open bucket's cycles).
    for (const [table] of tables) expect(Number(hashes[table]!.split(" ")[0]), table).toBeGreaterThan(0);
    expect(hashes).toEqual(expected);
  }, 240_000);
});
