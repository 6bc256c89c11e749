import { type ClusterReader, type FetchedPartition, type FetchRequestItem, isItemError } from "@/lib/kafka";
import { summarizeFlowTotals } from "./flow-builder";
import { keepPartitionsColumns, refillLagColumn } from "./flow-columns";
import { definePartitionsOnDemand, findFlowRows, findFlowTails, PartitionTails } from "./flow-rows";
import { type PartitionFields, readPartitionFields } from "./partition-fields";
import { internPartitionName } from "./partition-keys";
import type { Flow, FlowPartition } from "./types";

/**
 * Bytes read per partition: the batch holding MM2's position must come back whole. Kafka returns an
 * oversized batch only for the first partition of a response and truncates it elsewhere (KIP-74),
 * so this is the Java producer's default batch.size (16 KiB), which also bounds MM2's own batches.
 */
export const tailBatchBytes = 16 * 1024;

/** What one source Fetch returned for a flow partition, and the offset it was read from. */
export interface SourceTail {
  from: bigint;
  result: FetchedPartition;
}

/**
 * Reads the source log at MM2's position with ONE group-less Fetch per leader broker of each
 * flow's source cluster, for every partition that lags (to count its data records and date its
 * oldest one) or whose position is derived from the target's log end (read one record earlier, so
 * target-density.ts can check that the target's last record is MM2's copy of it). Keyed by
 * `flowPartitionKey`; what cannot be read is left out, with the error.
 */
export async function fetchSourceTails(flows: readonly Flow[], readers: ReadonlyMap<string, ClusterReader>): Promise<{ tails: Map<string, SourceTail>; errors: string[] }> {
  const tails = new Map<string, SourceTail>();
  const errors: string[] = [];
  for (const flow of flows) {
    const reader = readers.get(flow.source);
    if (!reader) continue;
    const fields = readPartitionFields(flow);
    const items: FetchRequestItem[] = [];
    const keys: string[] = [];
    for (let i = 0; i < fields.count; i++) {
      const from = chooseTailOffset(fields, i);
      if (from === null) continue;
      items.push({ topic: fields.topic(i), partition: fields.partition(i), offset: from });
      keys.push(fields.key(i));
    }
    if (items.length === 0) continue;
    try {
      const fetched = await reader.fetchPartitions(items, { maxBytes: tailBatchBytes, maxWaitMs: 0 });
      for (let k = 0; k < items.length; k++) {
        const item = items[k]!;
        const result = fetched.get(internPartitionName(item.topic, item.partition));
        if (result !== undefined && !isItemError(result)) tails.set(keys[k]!, { from: item.offset, result });
      }
    } catch (err) {
      errors.push(`reading the unreplicated tail of ${flow.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { tails, errors };
}

function chooseTailOffset(fields: PartitionFields, i: number): bigint | null {
  const position = fields.offsetNumber(i, "mm2Position");
  if (Number.isNaN(position)) return null;
  if (fields.positionSource(i) === "offset-sync" && position > 0) return fields.offset(i, "mm2Position")! - 1n;
  return fields.offsetNumber(i, "lag") > 0 ? fields.offset(i, "mm2Position") : null;
}

/**
 * Refines each partition from its source tail:
 * - `oldestUnreplicatedTimestamp`: the timestamp of the first data record not yet replicated;
 * - `lag` in data records (`lagBasis` "records") when the read reached the log end: transaction
 *   markers take offsets but are never copied, so an idle transactional partition whose log ends
 *   with a commit marker has nothing to copy (offset lag 1, record lag 0). Records of open or
 *   aborted transactions count: MM2's consumer reads uncommitted and copies them (KAFKA-14021);
 * - `transactionMarkersSeen`, remembered in `markerPartitions` across cycles.
 * A tail read from above the (final) position, e.g. after target-density.ts rejected a derived
 * position, says nothing about the records waiting: that partition keeps its offset lag.
 * The refinement is written beside the flow's rows (flow-rows.ts PartitionTails) of a copy of the flow: its
 * partitions are made only when read, its columns share all but the lag column. A flow without rows (made another
 * way) gets a copy of its partitions refined.
 */
export function applySourceTails(flows: readonly Flow[], tails: ReadonlyMap<string, SourceTail>, markerPartitions: Set<string>): Flow[] {
  return flows.map((flow) => {
    const fields = readPartitionFields(flow);
    const rows = findFlowRows(flow);
    const refined = findFlowTails(flow)?.carry() ?? new PartitionTails(fields.count);
    const touched = new Uint8Array(fields.count);
    for (let i = 0; i < fields.count; i++) {
      const key = fields.key(i);
      const tail = tails.get(key);
      if (tail !== undefined && tail.result.controlBatches > 0) markerPartitions.add(key);
      if (markerPartitions.size > 0 && markerPartitions.has(key)) refined.markers[i] = 1;
      if (tail === undefined) continue;
      const position = fields.offsetNumber(i, "mm2Position");
      if (Number.isNaN(position) || tail.from > position) continue;
      refineFromTail(refined, fields, i, tail.result);
      touched[i] = 1;
    }
    if (rows === undefined) {
      const partitions = flow.partitions.map((p, i) => refinePartition(p, refined, i, touched[i] === 1));
      const tailed = { ...flow, partitions, totals: summarizeFlowTotals(partitions) };
      const columns = refillLagColumn(flow, tailed, refined.recordLag);
      if (columns !== null) keepPartitionsColumns(partitions, columns);
      return tailed;
    }
    const tailed = copyFlow(flow);
    tailed.totals = { ...flow.totals, lag: rows.sumLag(refined) };
    const columns = refillLagColumn(flow, tailed, refined.recordLag);
    const keepColumns = (partitions: FlowPartition[]) => (columns === null ? undefined : keepPartitionsColumns(partitions, columns));
    definePartitionsOnDemand(tailed, rows, keepColumns, refined);
    return tailed;
  });
}

/**
 * Counts the data records waiting in the tail of the partition at `i` into `refined` (its position is known and the
 * tail was read from at most it).
 */
function refineFromTail(refined: PartitionTails, fields: PartitionFields, i: number, tail: FetchedPartition): void {
  // Numbers compared with the records' bigint offsets: exact (offsetNumber).
  const position = fields.offsetNumber(i, "mm2Position");
  const logEnd = fields.offsetNumber(i, "sourceLogEnd");
  const unknownEnd = Number.isNaN(logEnd);
  let waiting = 0;
  let oldest = Number.NaN;
  for (const r of tail.records) {
    if (r.offset < position || (!unknownEnd && r.offset >= logEnd)) continue;
    if (waiting++ === 0) oldest = r.timestamp;
  }
  refined.oldest[i] = oldest;
  // Only a read that covered every offset up to the log end can count the data records exactly.
  const offsetLag = fields.offsetNumber(i, "lag");
  if (unknownEnd || tail.nextOffset < logEnd || Number.isNaN(offsetLag) || offsetLag === 0) return;
  refined.recordLag[i] = waiting;
}

/** A partition of a flow without rows, refined as `refined` says (`touched`: its tail refined it this time). */
function refinePartition(p: FlowPartition, refined: PartitionTails, i: number, touched: boolean): FlowPartition {
  const transactionMarkersSeen = refined.markers[i] === 1;
  if (!touched) return { ...p, transactionMarkersSeen };
  const oldest = refined.oldest[i]!;
  const oldestUnreplicatedTimestamp = Number.isNaN(oldest) ? null : oldest;
  const recordLag = refined.recordLag[i]!;
  if (Number.isNaN(recordLag)) return { ...p, oldestUnreplicatedTimestamp, transactionMarkersSeen };
  return { ...p, lag: BigInt(recordLag), lagBasis: "records", oldestUnreplicatedTimestamp, transactionMarkersSeen };
}

/** A copy of the flow whose `partitions` are not read (a spread would make them: they are made on first read). */
function copyFlow(flow: Flow): Flow {
  return Object.defineProperties({}, Object.getOwnPropertyDescriptors(flow)) as Flow;
}
