import { type ClusterReader, isItemError } from "@/lib/kafka";
import type { Flow } from "./types";

/**
 * Fills `oldestUnreplicatedTimestamp` for every lagging partition of the flows: the timestamp of
 * the source record at MM2's position, from ONE group-less Fetch per leader broker of the source
 * cluster (1 KiB per partition: the first batch is enough). Returns the flows with it set; what
 * cannot be read stays null (the detectors then skip time-based rules for it).
 */
export async function readOldestUnreplicated(flows: Flow[], readers: ReadonlyMap<string, ClusterReader>): Promise<{ flows: Flow[]; errors: string[] }> {
  const errors: string[] = [];
  const out: Flow[] = [];
  for (const flow of flows) {
    const reader = readers.get(flow.source);
    const lagging = flow.partitions.filter((p) => p.lag !== null && p.lag > 0n && p.mm2Position !== null);
    if (!reader || lagging.length === 0) {
      out.push(flow);
      continue;
    }
    let results;
    try {
      results = await reader.fetchPartitions(lagging.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.mm2Position! })), { maxBytes: 1024, maxWaitMs: 0 });
    } catch (err) {
      errors.push(`reading the oldest unreplicated records of ${flow.id}: ${err instanceof Error ? err.message : String(err)}`);
      out.push(flow);
      continue;
    }
    out.push({
      ...flow,
      partitions: flow.partitions.map((p) => {
        const r = results.get(`${p.topic}/${p.partition}`);
        if (!r || isItemError(r) || p.mm2Position === null) return p;
        const record = r.records.find((x) => x.offset >= p.mm2Position!);
        return record ? { ...p, oldestUnreplicatedTimestamp: record.timestamp } : p;
      }),
    });
  }
  return { flows: out, errors };
}
