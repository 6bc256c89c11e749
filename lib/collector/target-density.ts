import { type ClusterReader, type FetchedRecord, isItemError } from "@/lib/kafka";
import { type Flow, type FlowPartition, flowPartitionKey } from "./types";
import { type SourceTail, tailBatchBytes } from "./unreplicated-tail";


/** Why a target partition is not dense, shown in its row. */
export const densityReasons = {
  markers: "the target partition holds transaction markers (MM2 in exactly-once mode or another transactional writer)",
  foreign: (last: bigint, source: bigint) =>
    `the target's last record (offset ${last}) is not MM2's copy of source offset ${source}: another producer writes to the target topic`,
} as const;

/**
 * Checks the assumption behind a position derived from the newest offset sync (flow-builder.ts
 * `derivePosition`: the target holds exactly the records MM2 copied after the sync, one offset
 * each), which MM2_REDELIVERY and the translation's exact mapping share. With ONE group-less Fetch
 * per leader broker of each flow's target cluster, for the partitions whose position was derived
 * this cycle or whose target holds records after the newest sync (until markers are known), it
 * reads the batch holding the target's last offset T − 1:
 * - a control batch: the target holds transaction markers (exactly-once mode does not come and go).
 * - for a derived position, a data record whose key or value differs from the source record at
 *   the derived position − 1 (read by fetchSourceTails; MM2 copies both, timestamps are not
 *   compared since a LogAppendTime target rewrites them): another producer writes to the target.
 * Both are remembered in `untrustedTargets` by `flowPartitionKey` for as long as Gapwatch runs: a
 * target written by others stays so, and its offset syncs no longer tell re-copies or positions.
 * Returns the partitions found this cycle: the caller rebuilds them from Connect's committed
 * position. A read that fails leaves the derived position as it is, with the error.
 */
export async function checkTargetDensity(
  flows: readonly Flow[],
  readers: ReadonlyMap<string, ClusterReader>,
  sourceTails: ReadonlyMap<string, SourceTail>,
  untrustedTargets: Map<string, string>,
): Promise<{ found: Set<string>; errors: string[] }> {
  const found = new Set<string>();
  const flag = (key: string, reason: string) => {
    untrustedTargets.set(key, reason);
    found.add(key);
  };
  const errors: string[] = [];
  for (const flow of flows) {
    const reader = readers.get(flow.target);
    const checked = flow.partitions.filter((p) => shouldCheck(p, untrustedTargets.has(flowPartitionKey(flow.id, p.topic, p.partition))));
    if (!reader || checked.length === 0) continue;
    try {
      const fetched = await reader.fetchPartitions(
        checked.map((p) => ({ topic: p.targetTopic, partition: p.partition, offset: p.targetLogEnd! - 1n })),
        { maxBytes: tailBatchBytes, maxWaitMs: 0 },
      );
      for (const p of checked) {
        const result = fetched.get(`${p.targetTopic}/${p.partition}`);
        if (result === undefined || isItemError(result)) continue;
        const key = flowPartitionKey(flow.id, p.topic, p.partition);
        const last = result.records.find((r) => r.offset === p.targetLogEnd! - 1n);
        if (result.controlBatches > 0 && last === undefined) {
          flag(key, densityReasons.markers);
          continue;
        }
        if (p.positionSource !== "offset-sync") continue;
        const copied = sourceTails.get(key)?.result.records.find((r) => r.offset === p.mm2Position! - 1n);
        if (last !== undefined && copied !== undefined && !isSameRecord(last, copied)) flag(key, densityReasons.foreign(last.offset, copied.offset));
      }
    } catch (err) {
      errors.push(`checking the target's last records of ${flow.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { found, errors };
}

/**
 * Partitions not yet known to be untrusted whose position was derived, or whose target holds
 * records after the newest offset sync (what a derived position and MM2_REDELIVERY count).
 */
function shouldCheck(p: FlowPartition, untrusted: boolean): boolean {
  if (untrusted || p.targetLogEnd === null || p.targetLogEnd === 0n) return false;
  if (p.positionSource === "offset-sync") return true;
  return p.latestSync !== null && p.targetLogEnd - 1n > p.latestSync.downstream;
}

/** The density issues of one flow's partitions for buildFlow, by source `topic/partition`. */
export function selectFlowDensityIssues(flowId: string, untrustedTargets: ReadonlyMap<string, string>): Map<string, string> {
  const prefix = `${flowId}|`;
  const selected = new Map<string, string>();
  for (const [key, reason] of untrustedTargets) {
    // Keys are `flowPartitionKey`s; Kafka topic names cannot contain "|".
    if (key.startsWith(prefix)) selected.set(key.slice(prefix.length).replace(/\|(\d+)$/, "/$1"), reason);
  }
  return selected;
}

function isSameRecord(a: FetchedRecord, b: FetchedRecord): boolean {
  return sameBytes(a.key, b.key) && sameBytes(a.value, b.value);
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}
