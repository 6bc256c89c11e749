import { type ClusterReader, type FetchedRecord, isItemError } from "@/lib/kafka";
import { type PartitionFields, readPartitionFields } from "./partition-fields";
import { internPartitionName } from "./partition-keys";
import type { Flow } from "./types";
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
    if (!reader) continue;
    const fields = readPartitionFields(flow);
    const checked: number[] = [];
    for (let i = 0; i < fields.count; i++) if (shouldCheck(fields, i, untrustedTargets)) checked.push(i);
    if (checked.length === 0) continue;
    try {
      const lastOffset = (i: number) => fields.offset(i, "targetLogEnd")! - 1n;
      const fetched = await reader.fetchPartitions(
        checked.map((i) => ({ topic: fields.targetTopic(i), partition: fields.partition(i), offset: lastOffset(i) })),
        { maxBytes: tailBatchBytes, maxWaitMs: 0 },
      );
      for (const i of checked) {
        const result = fetched.get(internPartitionName(fields.targetTopic(i), fields.partition(i)));
        if (result === undefined || isItemError(result)) continue;
        const key = fields.key(i);
        const at = lastOffset(i);
        const last = result.records.find((r) => r.offset === at);
        if (result.controlBatches > 0 && last === undefined) {
          flag(key, densityReasons.markers);
          continue;
        }
        if (fields.positionSource(i) !== "offset-sync") continue;
        const copiedAt = fields.offset(i, "mm2Position")! - 1n;
        const copied = sourceTails.get(key)?.result.records.find((r) => r.offset === copiedAt);
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
function shouldCheck(fields: PartitionFields, i: number, untrustedTargets: ReadonlyMap<string, string>): boolean {
  // A number against a bigint compares exactly (offsetNumber is exact for a flow's rows).
  const targetLogEnd = fields.offsetNumber(i, "targetLogEnd");
  if (Number.isNaN(targetLogEnd) || targetLogEnd === 0) return false;
  if (untrustedTargets.size > 0 && untrustedTargets.has(fields.key(i))) return false;
  if (fields.positionSource(i) === "offset-sync") return true;
  const sync = fields.latestSync(i);
  return sync !== null && targetLogEnd - 1 > sync.downstream;
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
