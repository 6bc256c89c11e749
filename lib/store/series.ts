import type { Flow } from "@/lib/collector/types";
import type { Dialect } from "./engine/dialect";
import { transaction, type Work } from "./engine/steps";
import { TieredTable } from "./tiered-table";
import { pruneTopicHours, selectTopicHours } from "./topic-hours";
import type { Columns, SeriesBatch, SeriesValue } from "./series-batch";
import { tiers } from "./tiers";
import type { PartitionSample, TopicLagPoint } from "./types";

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
/** A stored point of a partition series (values in partitionSpec's column order) as a sample; both stores read it so. */
export function toPartitionSample(point: { at: number; values: readonly (bigint | null)[] }): PartitionSample {
  const [sourceLogStart, sourceLogEnd, mm2Position, targetLogEnd, lag] = point.values;
  return {
    at: point.at,
    sourceLogStart: sourceLogStart ?? null,
    sourceLogEnd: sourceLogEnd ?? null,
    mm2Position: mm2Position ?? null,
    targetLogEnd: targetLogEnd ?? null,
    lag: lag ?? null,
  };
}

/**
 * topic_hours (migration 9): a row per topic and hour holding, as a JSON array of [minute of the hour, lag], the
 * minutes of that hour in which its lag changed, for 24 h; then the hour's largest lag alone at the hour's start (a
 * sparkline over days shows the largest lag per bucket) up to 7 days; the newest row of a topic stays beyond (carried
 * forward). A row per topic and hour instead of per minute: the flow and topic names and index entries are stored
 * once an hour, not once a minute (30,000 changing topics ≈ 30,000 × (24 + 144) ≈ 5 M rows at most).
 */
export const topicMinuteRowsMs = 24 * hourMs;
export const topicRetentionMs = tiers.at(-1)!.retentionMs;

/** The hours of topic rows to compact to their largest lag at `now`: [from, to), `to` an hour boundary 24 h back. */
export function planTopicCompaction(compactedTo: number, now: number): { from: number; to: number } | null {
  const to = Math.floor((now - topicMinuteRowsMs) / hourMs) * hourMs;
  return to > compactedTo ? { from: compactedTo, to } : null;
}

export const partitionSpec = {
  series: "partition_series",
  staged: "partition_staged",
  packs: "partition_packs",
  keyColumns: ["flow", "topic", "partition"],
  keyTypes: ["text", "text", "int"],
  valueColumns: ["source_log_start", "source_log_end", "mm2_position", "target_log_end", "lag"],
} as const;

/** The flows' partitions as one batch (keys and values in partitionSpec's column order). */
export function listPartitionBatch(flows: readonly Flow[]): SeriesBatch {
  const count = flows.reduce((sum, f) => sum + f.partitions.length, 0);
  const [flowIds, topics, partitions] = [new Array<string>(count), new Array<string>(count), new Array<number>(count)];
  const values = partitionSpec.valueColumns.map(() => new Array<SeriesValue>(count));
  const [sourceLogStart, sourceLogEnd, mm2Position, targetLogEnd, lag] = values as Columns<5>;
  let i = 0;
  for (const flow of flows) {
    for (const p of flow.partitions) {
      flowIds[i] = flow.id;
      topics[i] = p.topic;
      partitions[i] = p.partition;
      sourceLogStart[i] = p.sourceLogStart;
      sourceLogEnd[i] = p.sourceLogEnd;
      mm2Position[i] = p.mm2Position;
      targetLogEnd[i] = p.targetLogEnd;
      lag[i] = p.lag;
      i++;
    }
  }
  return { keys: [flowIds, topics, partitions], values };
}

/**
 * A flow's lag per topic this cycle, unknown lags left out (0 when none is known), as the sum of the partitions'
 * samples gives it: a topic has the same partitions in every cycle (Kafka never removes one).
 */
export function sumLagPerTopic(flow: Flow): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  // A flow lists a topic's partitions together (flow-builder.ts): each run is summed, then added to the map once.
  let topic: string | null = null;
  let sum = 0n;
  for (const p of flow.partitions) {
    if (p.topic !== topic) {
      if (topic !== null) sums.set(topic, (sums.get(topic) ?? 0n) + sum);
      topic = p.topic;
      sum = 0n;
    }
    if (p.lag !== null) sum += p.lag;
  }
  if (topic !== null) sums.set(topic, (sums.get(topic) ?? 0n) + sum);
  return sums;
}

/** The partition series and topic lag minutes of either store (change-only and tiered: tiers.ts). */
export function createSeries(dialect: Dialect) {
  const partitions = new TieredTable(partitionSpec, dialect);
  const topicHours = selectTopicHours(dialect);
  /** Lag last written per flow\u0000topic (decimal text: a sum of int64 lags may exceed int64). */
  const topicLags = new Map<string, string>();
  /** Topic minutes before this are compacted to hours (0: not known, compact all). */
  let compactedTo = 0;
  return {
    /** Writes the partitions and topic lags that changed since they were last written. */
    *record(flows: readonly Flow[], at: number): Work<void> {
      yield* partitions.write(listPartitionBatch(flows), at);
      const changed: [string, string, bigint][] = [];
      for (const flow of flows) {
        for (const [topic, lag] of sumLagPerTopic(flow)) {
          if (topicLags.get(`${flow.id}\u0000${topic}`) !== lag.toString()) changed.push([flow.id, topic, lag]);
        }
      }
      if (changed.length === 0) return;
      yield* transaction(() => topicHours.record(changed, at));
      for (const [flow, topic, lag] of changed) topicLags.set(`${flow}\u0000${topic}`, lag.toString());
    },

    /** A partition's offsets over [from, to] (raw for the last hour, then 5-minute, then hourly rows; tiers.ts). */
    *readHistory(flow: string, topic: string, partition: number, from: number, to: number): Work<PartitionSample[]> {
      const [series] = yield* partitions.findSeries([flow, topic, partition]);
      if (!series) return [];
      return ((yield* partitions.read([series.id], from, to)).get(series.id) ?? []).map(toPartitionSample);
    },

    /**
     * Total lag per topic per minute over a range (sparklines), by topic then time. A topic's row is written only in
     * a minute its lag changed: the last row before `from` is returned at `from` (carried forward), so an idle
     * topic still has its value over the range.
     */
    readTopicLag: (flow: string, from: number, to: number): Work<TopicLagPoint[]> => topicHours.read(flow, from, to),

    /** Drops rows past each tier's window, compacts topic minutes older than 24 h to hours; newest rows stay. */
    *prune(now: number): Work<void> {
      yield* partitions.prune(now);
      const compaction = planTopicCompaction(compactedTo, now);
      if (compaction) {
        yield* topicHours.compact(compaction.from, compaction.to);
        // Remembered at once: a rolled-back prune compacts the same hours again next time (idempotent).
        compactedTo = compaction.to;
      }
      yield* pruneTopicHours(now - topicRetentionMs);
    },
  };
}
