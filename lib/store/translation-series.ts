import type { Dialect } from "./engine/dialect";
import type { Work } from "./engine/steps";
import { TieredTable } from "./tiered-table";
import type { Columns, SeriesBatch, SeriesValue } from "./series-batch";
import type { TranslationSampleColumns } from "@/lib/translation";
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
  keyTypes: ["text", "text", "text", "int"],
  valueColumns: ["committed", "translated", "checkpoint_downstream", "ideal_low", "ideal_high", "reread", "failover_reread", "group_lag"],
} as const;

/** A flow's samples as one batch (keys and values in translationSpec's column order). */
export function listTranslationBatch(flow: string, samples: readonly TranslationSample[] | TranslationSampleColumns): SeriesBatch {
  const count = samples.length;
  if (!isSampleList(samples)) {
    const s = samples;
    const values = [s.committed, s.translated, s.checkpointDownstream, s.idealLow, s.idealHigh, s.reread, s.failoverReread, s.groupLag];
    return { keys: [readFlowColumn(flow, s.groups), s.groups, s.topics, s.partitions], values };
  }
  // One loop filling preallocated columns: a map per column costs three times as much at 190,000 samples.
  const [groups, topics, partitions] = [new Array<string>(count), new Array<string>(count), new Array<number>(count)];
  const values = translationSpec.valueColumns.map(() => new Array<SeriesValue>(count));
  const [committed, translated, downstream, idealLow, idealHigh, reread, failoverReread, groupLag] = values as Columns<8>;
  for (let i = 0; i < count; i++) {
    const s = samples[i]!;
    groups[i] = s.group;
    topics[i] = s.topic;
    partitions[i] = s.partition;
    committed[i] = s.committed;
    translated[i] = s.translated;
    downstream[i] = s.checkpointDownstream;
    idealLow[i] = s.idealLow;
    idealHigh[i] = s.idealHigh;
    reread[i] = s.reread;
    failoverReread[i] = s.failoverReread;
    groupLag[i] = s.groupLag;
  }
  return { keys: [new Array<string>(count).fill(flow), groups, topics, partitions], values };
}

/** The flow key column made for a groups column (lib/translation hands the same key arrays while its groups stay). */
const flowColumns = new WeakMap<readonly string[], { flow: string; column: readonly string[] }>();

/**
 * The flow key column of a batch: the same array as the last batch's when its groups column is the same array, so
 * the table finds every key column unchanged and takes the last batch's series ids (SeriesIds.reuse).
 */
function readFlowColumn(flow: string, groups: readonly string[]): readonly string[] {
  const held = flowColumns.get(groups);
  if (held !== undefined && held.flow === flow) return held.column;
  const column = new Array<string>(groups.length).fill(flow);
  flowColumns.set(groups, { flow, column });
  return column;
}

/** Whether the samples are a list of objects (lib/translation's TranslationSampleColumns are not). */
function isSampleList(samples: readonly TranslationSample[] | TranslationSampleColumns): samples is readonly TranslationSample[] {
  return Array.isArray(samples);
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

/** The translation series of either store. */
export function createTranslationSeries(dialect: Dialect) {
  const table = new TieredTable(translationSpec, dialect);
  return {
    /** Writes the samples that changed since last written. */
    record: (flow: string, samples: readonly TranslationSample[] | TranslationSampleColumns, at: number): Work<void> => table.write(listTranslationBatch(flow, samples), at),

    /** A group's points over [from, to], by partition then time, each partition's last value carried to `from`. */
    *read(flow: string, group: string, from: number, to: number): Work<TranslationSeriesPoint[]> {
      const series = (yield* table.findSeries([flow, group])).sort(
        (a, b) => String(a.key.topic).localeCompare(String(b.key.topic)) || Number(a.key.partition) - Number(b.key.partition),
      );
      const points = yield* table.read(series.map((s) => s.id), from, to);
      return series.flatMap(({ id, key }) => (points.get(id) ?? []).map((p) => toTranslationPoint(group, String(key.topic), Number(key.partition), p.at, p.values)));
    },

    prune: (now: number): Work<void> => table.prune(now),
  };
}
