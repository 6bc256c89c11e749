import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore, type Store, type TranslationSample } from "@/lib/store";
import { SampleColumnsBuilder } from "@/lib/translation/sample-columns";
import { FLOW, readSampleColumns, T0 } from "./fixtures";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function sample(partition: number, reread: bigint | null, overrides: Partial<TranslationSample> = {}): TranslationSample {
  return { group: "app", topic: "orders", partition, committed: 100n, translated: 90n, checkpointDownstream: 80n, idealLow: 100n, idealHigh: 100n, reread, failoverReread: 20n, groupLag: 5n, ...overrides };
}

let dir: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gw-translation-series-"));
  store = createSqliteStore(path.join(dir, "gapwatch.db"));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("translation series in the store", () => {
  it("reads back a group's samples per partition and time, int64 values exact", async () => {
    await store.recordTranslationSamples(FLOW, [sample(1, 7n), sample(0, null, { translated: null, groupLag: 9007199254740993n })], T0);
    await store.recordTranslationSamples(FLOW, [sample(0, 3n)], T0 + 10_000);
    await store.recordTranslationSamples(FLOW, [sample(0, 9n, { group: "other" })], T0 + 10_000);
    const series = await store.readTranslationSeries(FLOW, "app", T0, T0 + MINUTE);
    expect(series.map((p) => [p.partition, p.at, p.reread, p.translated, p.groupLag])).toEqual([
      [0, T0, null, null, 9007199254740993n],
      [0, T0 + 10_000, 3n, 90n, 5n],
      [1, T0, 7n, 90n, 5n],
      // Partition 1 did not change: its value is carried to the newest cycle written (T0 + 10 s).
      [1, T0 + 10_000, 7n, 90n, 5n],
    ]);
  });

  it("writes samples handed over as columns as it writes them as objects: numbers where exact, bigints beyond 2^53", async () => {
    const builder = new SampleColumnsBuilder(2);
    const rows = [sample(0, 3n), sample(1, null, { translated: null, groupLag: 9007199254740993n })];
    rows.forEach((row, i) => builder.setSample(i, row));
    const columns = builder.finish(["app", "app"], ["orders", "orders"], [0, 1]);
    expect(columns.reread).toBeInstanceOf(Float64Array);
    // The one value float64 would round turns its column to bigints, exact.
    expect(columns.groupLag).toEqual([5n, 9007199254740993n]);
    expect(readSampleColumns(columns)).toEqual(rows);
    await store.recordTranslationSamples(FLOW, columns, T0);
    await store.recordTranslationSamples(FLOW, [sample(0, 4n), rows[1]!], T0 + 10_000);
    const series = await store.readTranslationSeries(FLOW, "app", T0, T0 + MINUTE);
    expect(series.map((p) => [p.partition, p.at, p.reread, p.translated, p.groupLag])).toEqual([
      [0, T0, 3n, 90n, 5n],
      [0, T0 + 10_000, 4n, 90n, 5n],
      // The same values as objects the next cycle: unchanged, nothing written (carried to the newest cycle).
      [1, T0, null, null, 9007199254740993n],
      [1, T0 + 10_000, null, null, 9007199254740993n],
    ]);
  });

  it("keeps 5-minute rows after raw samples are pruned (last value of each bucket)", async () => {
    await store.recordTranslationSamples(FLOW, [sample(0, 1n)], T0);
    await store.recordTranslationSamples(FLOW, [sample(0, 2n)], T0 + 30_000);
    await store.recordTranslationSamples(FLOW, [sample(0, 3n)], T0 + 2 * HOUR);
    await store.prune(T0 + 2 * HOUR);
    const series = await store.readTranslationSeries(FLOW, "app", T0 - HOUR, T0 + 3 * HOUR);
    expect(series.map((p) => [p.at, p.reread])).toEqual([
      [T0, 2n],
      [T0 + 2 * HOUR, 3n],
    ]);
  });
});
