import { type ClusterReader, type FetchedPartition, isItemError } from "@/lib/kafka";
import { summarizeFlowTotals } from "./flow-builder";
import { type Flow, type FlowPartition, flowPartitionKey } from "./types";

/** Bytes read per lagging partition: the first batch at MM2's position is enough for its timestamp. */
const tailBytes = 1024;

/**
 * Reads, for every lagging partition of the flows, the source log at MM2's position with ONE
 * group-less Fetch per leader broker of the source cluster, and refines the partition from it:
 * - `oldestUnreplicatedTimestamp`: the timestamp of the first data record not yet replicated;
 * - `lag` in data records (`lagBasis` "records") when the read reached the log end: transaction
 *   markers take offsets but are never copied, so an idle transactional partition whose log ends
 *   with a commit marker has nothing to copy (offset lag 1, record lag 0). Records of open or
 *   aborted transactions count: MM2's consumer reads uncommitted and copies them (KAFKA-14021);
 * - `transactionMarkersSeen`, remembered in `markerPartitions` across cycles.
 * What cannot be read keeps its offset-based lag and a null timestamp; errors are returned.
 */
export async function readUnreplicatedTails(
  flows: readonly Flow[],
  readers: ReadonlyMap<string, ClusterReader>,
  markerPartitions: Set<string>,
): Promise<{ flows: Flow[]; errors: string[] }> {
  const errors: string[] = [];
  const out: Flow[] = [];
  for (const flow of flows) {
    const reader = readers.get(flow.source);
    const lagging = flow.partitions.filter((p) => p.offsetLag !== null && p.offsetLag > 0n && p.mm2Position !== null);
    let results = new Map<string, FetchedPartition>();
    if (reader && lagging.length > 0) {
      try {
        const fetched = await reader.fetchPartitions(lagging.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.mm2Position! })), { maxBytes: tailBytes, maxWaitMs: 0 });
        results = new Map([...fetched].flatMap(([key, r]) => (isItemError(r) ? [] : [[key, r] as const])));
      } catch (err) {
        errors.push(`reading the unreplicated tail of ${flow.id}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const partitions = flow.partitions.map((p) => {
      const key = flowPartitionKey(flow.id, p.topic, p.partition);
      const tail = results.get(`${p.topic}/${p.partition}`);
      if (tail !== undefined && tail.controlBatches > 0) markerPartitions.add(key);
      const refined = tail === undefined ? p : refineFromTail(p, tail);
      return { ...refined, transactionMarkersSeen: markerPartitions.has(key) };
    });
    out.push({ ...flow, partitions, totals: summarizeFlowTotals(partitions) });
  }
  return { flows: out, errors };
}

function refineFromTail(p: FlowPartition, tail: FetchedPartition): FlowPartition {
  const position = p.mm2Position!;
  const logEnd = p.sourceLogEnd;
  const waiting = tail.records.filter((r) => r.offset >= position && (logEnd === null || r.offset < logEnd));
  const oldest = waiting[0]?.timestamp ?? null;
  // Only a read that covered every offset up to the log end can count the data records exactly.
  if (logEnd === null || tail.nextOffset < logEnd) return { ...p, oldestUnreplicatedTimestamp: oldest };
  return { ...p, lag: BigInt(waiting.length), lagBasis: "records", oldestUnreplicatedTimestamp: oldest };
}
