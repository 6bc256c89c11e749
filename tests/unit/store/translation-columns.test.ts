import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteStore, type Store, type TranslationSample, type TranslationSampleColumns } from "@/lib/store";

const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
const FLOW = "east->west";

function sample(group: string, partition: number, committed: bigint, more: Partial<TranslationSample> = {}): TranslationSample {
  return {
    group, topic: "orders", partition, committed, translated: committed - 10n, checkpointDownstream: null,
    idealLow: committed, idealHigh: committed + 1n, reread: 10n, failoverReread: null, groupLag: 2n ** 53n + 1n,
    ...more,
  };
}

function toColumns(samples: readonly TranslationSample[]): TranslationSampleColumns {
  return {
    groups: samples.map((s) => s.group),
    topics: samples.map((s) => s.topic),
    partitions: samples.map((s) => s.partition),
    committed: samples.map((s) => s.committed), translated: samples.map((s) => s.translated),
    checkpointDownstream: samples.map((s) => s.checkpointDownstream), idealLow: samples.map((s) => s.idealLow),
    idealHigh: samples.map((s) => s.idealHigh), reread: samples.map((s) => s.reread),
    failoverReread: samples.map((s) => s.failoverReread), groupLag: samples.map((s) => s.groupLag),
  };
}

const dirs: string[] = [];
const stores: Store[] = [];
function openStore(): Store {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gw-translation-columns-"));
  dirs.push(dir);
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("translation samples given as columns", () => {
  it("read back exactly as the same samples given as objects, change-only from cycle to cycle", async () => {
    const cycles = [
      [sample("app", 0, 100n), sample("app", 1, 7n, { translated: null, reread: null }), sample("other", 0, 5n)],
      [sample("app", 0, 100n), sample("app", 1, 9n), sample("other", 0, 5n, { failoverReread: -3n })],
      [sample("app", 0, 120n), sample("app", 1, 9n), sample("other", 0, 5n, { failoverReread: -3n })],
    ];
    const asObjects = openStore();
    const asColumns = openStore();
    for (const [k, samples] of cycles.entries()) {
      await asObjects.recordTranslationSamples(FLOW, samples, T0 + k * 10_000);
      await asColumns.recordTranslationSamples(FLOW, toColumns(samples), T0 + k * 10_000);
    }
    for (const group of ["app", "other"]) {
      const expected = await asObjects.readTranslationSeries(FLOW, group, T0, T0 + 60_000);
      expect(expected.length).toBeGreaterThan(0);
      expect(await asColumns.readTranslationSeries(FLOW, group, T0, T0 + 60_000)).toEqual(expected);
    }
    const app1 = (await asColumns.readTranslationSeries(FLOW, "app", T0, T0 + 20_000)).filter((p) => p.partition === 1);
    expect(app1.map((p) => [p.at, p.committed, p.translated])).toEqual([
      [T0, 7n, null],
      [T0 + 10_000, 9n, -1n],
      [T0 + 20_000, 9n, -1n],
    ]);
  });
});
