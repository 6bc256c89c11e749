import { type ClusterReader, type FetchedRecord, isItemError } from "@/lib/kafka";

/** Where the collector continues reading one partition of an internal topic. */
export interface TailPosition {
  next: bigint | null;
}

export interface TailResult {
  records: FetchedRecord[];
  /** The partition restarted below our position (topic recreated or truncated). */
  restarted: boolean;
  error: string | null;
}

/**
 * Reads what is new in one partition since the last cycle, from `startAt` (default: log start) on
 * first use, at most `maxRounds` fetches per cycle (the rest follows next cycle). A position
 * beyond the log end or below the log start restarts from the log start.
 */
export async function tailPartition(
  reader: ClusterReader,
  topic: string,
  partition: number,
  position: TailPosition,
  bounds: { logStart: bigint | null; logEnd: bigint | null },
  opts: { startAt?: (logStart: bigint, logEnd: bigint) => bigint; maxRounds?: number } = {},
): Promise<TailResult> {
  const logStart = bounds.logStart ?? 0n;
  const logEnd = bounds.logEnd;
  let restarted = false;
  if (position.next === null) {
    position.next = opts.startAt && logEnd !== null ? opts.startAt(logStart, logEnd) : logStart;
  } else if ((logEnd !== null && position.next > logEnd) || position.next < logStart) {
    restarted = position.next > (logEnd ?? position.next);
    position.next = logStart;
  }
  const records: FetchedRecord[] = [];
  for (let round = 0; round < (opts.maxRounds ?? 20); round++) {
    if (logEnd !== null && position.next >= logEnd) break;
    const result = await reader.fetchRecords(topic, partition, position.next);
    if (isItemError(result)) {
      if (result.error === "OFFSET_OUT_OF_RANGE") {
        position.next = logStart;
        restarted = true;
        continue;
      }
      return { records, restarted, error: `${topic}/${partition}: ${result.error}` };
    }
    records.push(...result.records);
    if (result.nextOffset <= position.next) break;
    position.next = result.nextOffset;
    if (position.next >= result.highWatermark) break;
  }
  return { records, restarted, error: null };
}
