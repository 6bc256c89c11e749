import type { ClusterReader, FetchRequestItem, FetchResult } from "@/lib/kafka";
import { tailBatchBytes } from "./unreplicated-tail";

/** What one group-less read of sampled records returned, and what it cost. */
export interface RecordSampleRead {
  /** By `topic/partition`; what could not be read is an `{ error }`. */
  results: Map<string, FetchResult>;
  /** Fetch requests the read sent: one per leader broker, a second one for partitions whose leader moved. */
  requests: number;
  /** Why the whole read failed (cluster unreachable), or null. */
  error: string | null;
}

/**
 * Reads a few records at given offsets of one cluster for the content audit: ONE group-less Fetch per leader
 * broker for all the partitions (read-uncommitted, as MM2's consumer reads), at most `tailBatchBytes` per
 * partition — well under any max.message.bytes, so only the batches holding the sampled offsets come back
 * (Kafka still returns a larger first batch whole, KIP-74). The records are compared in memory and dropped.
 */
export async function readRecordSamples(reader: ClusterReader, items: readonly FetchRequestItem[]): Promise<RecordSampleRead> {
  const before = countRequests(reader);
  try {
    const results = await reader.fetchPartitions([...items], { maxBytes: tailBatchBytes, maxWaitMs: 0 });
    return { results, requests: countRequests(reader) - before, error: null };
  } catch (err) {
    return { results: new Map(), requests: countRequests(reader) - before, error: err instanceof Error ? err.message : String(err) };
  }
}

function countRequests(reader: ClusterReader): number {
  return reader.requestCounts().reduce((n, c) => n + (c.api === "Fetch" ? c.count : 0), 0);
}
