import type { SqliteDb } from "./db";
import { SqliteTieredTable } from "./tiered-table";
import { type SeriesItem, seriesKey } from "./tiers";
import type { TranslationSample, TranslationSeriesPoint } from "./types";

/**
 * Offset-translation series (migrations 4 and 7): one series per flow × group × partition, change-only, tiered and
 * packed like the partition series (tiers.ts): a group that did not commit and whose translation did not move
 * writes nothing.
 */
export const translationSpec = {
  series: "translation_series",
  staged: "translation_staged",
  packs: "translation_packs",
  keyColumns: ["flow", "group_id", "topic", "partition"],
  valueColumns: ["committed", "translated", "checkpoint_downstream", "ideal_low", "ideal_high", "reread", "failover_reread", "group_lag"],
} as const;

/** A flow's samples as series items (values in translationSpec's column order). */
export function listTranslationItems(flow: string, samples: readonly TranslationSample[]): SeriesItem[] {
  return samples.map((s) => {
    const keyValues = [flow, s.group, s.topic, s.partition];
    const values = [s.committed, s.translated, s.checkpointDownstream, s.idealLow, s.idealHigh, s.reread, s.failoverReread, s.groupLag];
    return { key: seriesKey(keyValues), keyValues, values };
  });
}

/** Turns a stored series' values (translationSpec's columns) back into a point. */
export function toTranslationPoint(group: string, topic: string, partition: number, at: number, values: readonly (bigint | null)[]): TranslationSeriesPoint {
  const [committed, translated, checkpointDownstream, idealLow, idealHigh, reread, failoverReread, groupLag] = values;
  return {
    group, topic, partition, at,
    committed: committed!,
    translated: translated ?? null,
    checkpointDownstream: checkpointDownstream ?? null,
    idealLow: idealLow ?? null,
    idealHigh: idealHigh ?? null,
    reread: reread ?? null,
    failoverReread: failoverReread ?? null,
    groupLag: groupLag ?? null,
  };
}

/** The translation series of the SQLite store. */
export function createSqliteTranslationSeries(db: SqliteDb) {
  const table = new SqliteTieredTable(db, translationSpec);
  return {
    /** Writes the samples that changed since last written. */
    record: (flow: string, samples: readonly TranslationSample[], at: number): void => table.write(listTranslationItems(flow, samples), at),

    /** A group's points over [from, to], by partition then time, each partition's last value carried to `from`. */
    read(flow: string, group: string, from: number, to: number): TranslationSeriesPoint[] {
      const series = table.findSeries([flow, group]).sort((a, b) => String(a.key.topic).localeCompare(String(b.key.topic)) || Number(a.key.partition) - Number(b.key.partition));
      const points = table.read(series.map((s) => s.id), from, to);
      return series.flatMap(({ id, key }) => (points.get(id) ?? []).map((p) => toTranslationPoint(group, String(key.topic), Number(key.partition), p.at, p.values)));
    },

    prune: (now: number): void => table.prune(now),
  };
}
