import { describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/store/db";
import { type SeriesBatch, SeriesIds } from "@/lib/store/series-batch";
import { sqliteDialect } from "@/lib/store/engine/dialect";
import { SqliteRunner } from "@/lib/store/engine/sqlite-runner";
import { TieredTable } from "@/lib/store/tiered-table";
import { translationSpec } from "@/lib/store/translation-series";

const findAll = (ids: SeriesIds, keys: SeriesBatch["keys"]) => keys[0]!.map((_, row) => ids.find(keys, row));

describe("series ids", () => {
  it("finds each row's id by its key values, through the previous batch's positions only when the keys are equal", () => {
    const ids = new SeriesIds();
    ids.add(["f", "a", 0], 1);
    ids.add(["f", "a", 1], 2);
    ids.add(["f", "b", 0], 3);
    const first = [["f", "f", "f"], ["a", "a", "b"], [0, 1, 0]];
    expect(findAll(ids, first)).toEqual([1, 2, 3]);
    ids.keep(first, [1, 2, 3]);
    // Reordered, one series gone and one unknown: positions whose keys differ are looked up by key.
    const second = [["f", "f", "f", "f"], ["b", "a", "a", "c"], [0, 1, 0, 0]];
    expect(findAll(ids, second)).toEqual([3, 2, 1, undefined]);
    // The same key values in new strings still match the previous batch's row.
    expect(findAll(ids, [["f"], [["a"].join("")], [0]])).toEqual([1]);
  });
});

describe("series ids of a batch whose key columns are the last batch's arrays", () => {
  it("are that batch's ids, kept per flow (first key), and not taken for equal values in other arrays", () => {
    const ids = new SeriesIds();
    const f = [["f", "f"], ["a", "b"], [0, 0]];
    const g = [["g"], ["a"], [0]];
    ids.keep(f, [1, 2]);
    ids.keep(g, [3]);
    expect(ids.reuse(f)).toEqual([1, 2]);
    expect(ids.reuse(g)).toEqual([3]);
    expect(ids.reuse([f[0]!, [...f[1]!], f[2]!])).toBeNull();
  });
});

describe("a tiered table's write that fails", () => {
  it("hands the rolled-back series ids out again and reads each series' own values after the retry", () => {
    const db = openDatabase(":memory:");
    const engine = new SqliteRunner(db);
    const table = new TieredTable(translationSpec, sqliteDialect);
    const row = (group: string, committed: bigint) => ({
      key: ["f", group, "t", 0],
      values: [committed, null, null, null, null, null, null, 1n],
    });
    const write = (rows: ReturnType<typeof row>[], at: number) => {
      const keys = [0, 1, 2, 3].map((c) => rows.map((r) => r.key[c]!));
      engine.run(table.write({ keys, values: translationSpec.valueColumns.map((_, j) => rows.map((r) => r.values[j]!)) }, at));
    };
    const read = (group: string) => {
      const id = engine.run(table.findSeries(["f", group]))[0]!.id;
      return { id, committed: engine.run(table.read([id], 0, 10_000)).get(id)!.map((p) => [p.at, p.values[0]]) };
    };
    write([row("a", 1n)], 1_000);
    db.exec("CREATE TRIGGER fail BEFORE INSERT ON translation_staged BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    expect(() => write([row("a", 2n), row("b", 5n)], 2_000)).toThrow("disk full");
    db.exec("DROP TRIGGER fail");
    // "c" now takes the id "b" had inside the rolled-back write; "a" is written again, "b" gets a new id.
    write([row("c", 7n), row("a", 2n), row("b", 5n)], 3_000);
    expect([read("a"), read("b"), read("c")]).toEqual([
      { id: 1, committed: [[1_000, 1n], [3_000, 2n]] },
      { id: 3, committed: [[3_000, 5n]] },
      { id: 2, committed: [[3_000, 7n]] },
    ]);
    db.close();
  });
});
