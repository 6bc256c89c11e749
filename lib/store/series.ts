import type { Flow, FlowPartition } from "@/lib/collector/types";
import { countFlowPartitions } from "@/lib/collector/flow-rows";
import type { Dialect } from "./engine/dialect";
import { transaction, type Work } from "./engine/steps";
import { TieredTable } from "./tiered-table";
import { TopicLagChanges } from "./topic-lag-changes";
import { pruneTopicHours, selectTopicHours } from "./topic-hours";
import { listPartitionKeys, PartitionBatchKeys } from "./partition-batch-keys";
import { type OffsetColumn, readExactColumns, readPositionColumns } from "./position-columns";
import type { SeriesBatch, SeriesValue } from "./series-batch";
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

/** partitionSpec's value columns as the flow's offset columns, in the same order. */
const partitionValueColumns: readonly OffsetColumn[] = ["sourceLogStart", "sourceLogEnd", "mm2Position", "targetLogEnd", "lag"];

/**
 * The flows' partitions as one batch (keys and values in partitionSpec's column order): values from the flows' columns,
 * or, when a flow holds an offset beyond 2^53 (no columns), from the partitions' bigints. With `held`, the key columns
 * are the last batch's arrays while the flows list the same partitions in the same order.
 */
export function listPartitionBatch(flows: readonly Flow[], held?: PartitionBatchKeys): SeriesBatch {
  const count = flows.reduce((sum, f) => sum + countFlowPartitions(f), 0);
  const flowColumns = flows.map(readExactColumns);
  const keys = held === undefined ? listPartitionKeys(flows) : held.read(flows, flowColumns);
  const columns = flows.map((flow) => readPositionColumns(flow, partitionValueColumns));
  const exact = columns.every((c) => c !== null);
  // One flow (the usual case): its position columns are the batch's, not copied again.
  const single = exact && flows.length === 1 ? columns[0]! : null;
  const values: (Float64Array | SeriesValue[])[] =
    single ?? partitionValueColumns.map(() => (exact ? new Float64Array(count) : new Array<SeriesValue>(count)));
  if (single !== null) return { keys, values };
  let i = 0;
  for (const [f, flow] of flows.entries()) {
    if (!exact) for (let j = 0; j < values.length; j++) copyBigints(flow.partitions, partitionValueColumns[j]!, values[j] as SeriesValue[], i);
    else for (let j = 0; j < values.length; j++) (values[j] as Float64Array).set(columns[f]![j]!, i);
    i += countFlowPartitions(flow);
  }
  return { keys, values };
}

/** A value of each partition into `into` from `at` on (the batch of a flow with an offset beyond 2^53). */
function copyBigints(partitions: readonly FlowPartition[], name: OffsetColumn, into: SeriesValue[], at: number): void {
  for (let k = 0; k < partitions.length; k++) into[at + k] = partitions[k]![name];
}

/**
 * A flow's lag per topic this cycle, unknown lags left out (0 when none is known), as the sum of the partitions'
 * samples gives it: a topic has the same partitions in every cycle (Kafka never removes one). Summed as numbers over
 * the flow's topic runs (FlowColumns.topicRunStarts) from its lag column by slot, no partition object read but each
 * run's first; a sum past 2^53 (where numbers stop being exact), or a flow without columns, as bigints.
 */
export function sumLagPerTopic(flow: Flow): Map<string, bigint> {
  const partitions = flow.partitions;
  const sums = new Map<string, bigint>();
  const add = (topic: string, sum: bigint) => sums.set(topic, (sums.get(topic) ?? 0n) + sum);
  const columns = readExactColumns(flow);
  if (columns === null || columns.duplicates) {
    // A flow lists a topic's partitions together (flow-builder.ts): each run is summed, then added to the map once.
    let start = 0;
    for (let i = 1; i <= partitions.length; i++) {
      if (i === partitions.length || partitions[i]!.topic !== partitions[start]!.topic) {
        add(partitions[start]!.topic, sumBigints(partitions, start, i));
        start = i;
      }
    }
    return sums;
  }
  const { lag, slotAt, topicRunStarts: starts } = columns;
  for (let r = 0; r < starts.length; r++) {
    const from = starts[r]!;
    const to = r + 1 < starts.length ? starts[r + 1]! : partitions.length;
    let sum = 0;
    let exact = true;
    for (let i = from; i < to && exact; i++) {
      const v = lag[slotAt[i]!]!;
      if (v !== v) continue;
      sum += v;
      exact = sum <= Number.MAX_SAFE_INTEGER && sum >= -Number.MAX_SAFE_INTEGER;
    }
    add(partitions[from]!.topic, exact ? BigInt(sum) : sumBigints(partitions, from, to));
  }
  return sums;
}

/** The sum of the known lags of partitions [from, to), as bigints. */
function sumBigints(partitions: readonly FlowPartition[], from: number, to: number): bigint {
  let sum = 0n;
  for (let i = from; i < to; i++) sum += partitions[i]!.lag ?? 0n;
  return sum;
}

/** The partition series and topic lag minutes of either store (change-only and tiered: tiers.ts). */
export function createSeries(dialect: Dialect) {
  const partitions = new TieredTable(partitionSpec, dialect);
  const batchKeys = new PartitionBatchKeys();
  const topicHours = selectTopicHours(dialect);
  /** Lag last written per flow and topic (topic-lag-changes.ts). */
  const topicLags = new TopicLagChanges();
  /** Topic minutes before this are compacted to hours (0: not known, compact all). */
  let compactedTo = 0;
  return {
    /** Writes the partitions and topic lags that changed since they were last written. */
    *record(flows: readonly Flow[], at: number): Work<void> {
      yield* partitions.write(listPartitionBatch(flows, batchKeys), at);
      const changed = topicLags.list(flows, sumLagPerTopic);
      if (changed.length === 0) return;
      yield* transaction(() => topicHours.record(changed, at));
      topicLags.remember();
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
