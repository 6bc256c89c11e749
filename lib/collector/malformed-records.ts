import type { FetchedRecord } from "@/lib/kafka";
import { getLogger } from "@/lib/logger";
import type { DecodeAllResult } from "@/lib/mm2/types";

const log = getLogger("collector");

/** Offset ranges listed per log line; beyond it the line says how many offsets it left out. */
const maxLoggedRanges = 100;

/** Where a batch of tailed records came from. */
export interface TailedPartition {
  cluster: string;
  topic: string;
  partition: number;
}

/**
 * Counts a batch's malformed records (the snapshot's malformedRecords, per cluster/topic) and logs
 * them in one warning per batch: cluster, topic, partition, their offsets as ranges and the last
 * reason. The records themselves are skipped by decodeAll; a garbage record never stops a cycle.
 */
export function countMalformed(
  ctx: { state: { malformed: Record<string, number> } },
  where: TailedPartition,
  records: readonly Pick<FetchedRecord, "offset">[],
  decoded: Pick<DecodeAllResult<unknown>, "malformed" | "malformedAt" | "lastError">,
): void {
  if (decoded.malformed === 0) return;
  const key = `${where.cluster}/${where.topic}`;
  ctx.state.malformed[key] = (ctx.state.malformed[key] ?? 0) + decoded.malformed;
  const offsets = decoded.malformedAt.map((i) => records[i]!.offset);
  log.warn({ ...where, malformed: decoded.malformed, offsets: formatOffsetRanges(offsets), reason: decoded.lastError }, "malformed records skipped");
}

/** Ascending offsets as `3-7,12` (at most maxLoggedRanges ranges, then how many offsets were left out). */
export function formatOffsetRanges(offsets: readonly bigint[]): string {
  const ranges: [bigint, bigint][] = [];
  for (const offset of offsets) {
    const last = ranges.at(-1);
    if (last !== undefined && offset === last[1] + 1n) last[1] = offset;
    else ranges.push([offset, offset]);
  }
  const shown = ranges.slice(0, maxLoggedRanges).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
  const left = ranges.slice(maxLoggedRanges).reduce((n, [a, b]) => n + Number(b - a + 1n), 0);
  return left > 0 ? `${shown.join(",")} (+${left} more)` : shown.join(",");
}
