import { type ClusterReader, type FetchedPartition, isItemError } from "@/lib/kafka";
import { summarizeFlowTotals } from "./flow-builder";
import { refillLagColumn } from "./flow-columns";
import { type Flow, type FlowPartition, flowPartitionKey } from "./types";

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
    const items = flow.partitions.flatMap((p) => {
      const from = chooseTailOffset(p);
      return from === null ? [] : [{ topic: p.topic, partition: p.partition, offset: from }];
    });
    if (!reader || items.length === 0) continue;
    try {
      const fetched = await reader.fetchPartitions(items, { maxBytes: tailBatchBytes, maxWaitMs: 0 });
      for (const item of items) {
        const result = fetched.get(`${item.topic}/${item.partition}`);
        if (result !== undefined && !isItemError(result)) tails.set(flowPartitionKey(flow.id, item.topic, item.partition), { from: item.offset, result });
      }
    } catch (err) {
      errors.push(`reading the unreplicated tail of ${flow.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { tails, errors };
}

function chooseTailOffset(p: FlowPartition): bigint | null {
  if (p.mm2Position === null) return null;
  if (p.positionSource === "offset-sync" && p.mm2Position > 0n) return p.mm2Position - 1n;
  return p.offsetLag !== null && p.offsetLag > 0n ? p.mm2Position : null;
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
 */
export function applySourceTails(flows: readonly Flow[], tails: ReadonlyMap<string, SourceTail>, markerPartitions: Set<string>): Flow[] {
  return flows.map((flow) => {
    const partitions = flow.partitions.map((p) => {
      const key = flowPartitionKey(flow.id, p.topic, p.partition);
      const tail = tails.get(key);
      if (tail !== undefined && tail.result.controlBatches > 0) markerPartitions.add(key);
      const refined = tail === undefined || p.mm2Position === null || tail.from > p.mm2Position ? p : refineFromTail(p, tail.result);
      return { ...refined, transactionMarkersSeen: markerPartitions.has(key) };
    });
    const tailed = { ...flow, partitions, totals: summarizeFlowTotals(partitions) };
    refillLagColumn(flow, tailed);
    return tailed;
  });
}

function refineFromTail(p: FlowPartition, tail: FetchedPartition): FlowPartition {
  const position = p.mm2Position!;
  const logEnd = p.sourceLogEnd;
  const waiting = tail.records.filter((r) => r.offset >= position && (logEnd === null || r.offset < logEnd));
  const oldest = waiting[0]?.timestamp ?? null;
  // Only a read that covered every offset up to the log end can count the data records exactly.
  if (logEnd === null || tail.nextOffset < logEnd || (p.offsetLag ?? 0n) === 0n) return { ...p, oldestUnreplicatedTimestamp: oldest };
  return { ...p, lag: BigInt(waiting.length), lagBasis: "records", oldestUnreplicatedTimestamp: oldest };
}
