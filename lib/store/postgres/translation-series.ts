import type pg from "pg";
import { listTranslationBatch, toTranslationPoint, translationSpec } from "../translation-series";
import type { TranslationSample, TranslationSeriesPoint } from "../types";
import { PostgresTieredTable } from "./tiered-table";

/** The translation series of the PostgreSQL store, as the SQLite store's (lib/store/translation-series.ts). */
export function createPostgresTranslationSeries() {
  const table = new PostgresTieredTable({ ...translationSpec, keyTypes: ["text", "text", "text", "int"] });
  return {
    record: (pool: pg.Pool, flow: string, samples: readonly TranslationSample[], at: number): Promise<void> => table.write(pool, listTranslationBatch(flow, samples), at),

    /** A group's points over [from, to], by partition then time, each partition's last value carried to `from`. */
    async read(pool: pg.Pool, flow: string, group: string, from: number, to: number): Promise<TranslationSeriesPoint[]> {
      const series = (await table.findSeries(pool, [flow, group])).sort(
        (a, b) => String(a.key.topic).localeCompare(String(b.key.topic)) || Number(a.key.partition) - Number(b.key.partition),
      );
      const points = await table.read(pool, series.map((s) => s.id), from, to);
      return series.flatMap(({ id, key }) => (points.get(id) ?? []).map((p) => toTranslationPoint(group, String(key.topic), Number(key.partition), p.at, p.values)));
    },

    prune: (pool: pg.Pool, client: pg.PoolClient, now: number): Promise<void> => table.prune(pool, client, now),
  };
}
