import { kafkaErrorName } from "./errors";
import type { FetchedRecord, FetchResult, RawFetchResponsePartition, RawRecordsBatch } from "./types";

/** RecordBatch attribute bits (Kafka's DefaultRecordBatch): bit 3 timestamp type, bit 5 control batch. */
const logAppendTimeBit = 0x08;
const controlBatchBit = 0x20;

/**
 * Records of the given batches at or after `fromOffset`, and the offset to fetch next.
 * - A fetch starts at the batch that contains `fromOffset`, so earlier records are dropped.
 * - Control batches (transaction markers) hold no data records but occupy offsets.
 * - `nextOffset` is one past the last batch (lastOffsetDelta), so offsets removed by compaction
 *   at the end of a batch are skipped too; never below `fromOffset`.
 * - Timestamps: LogAppendTime batches carry the broker time in maxTimestamp for every record;
 *   otherwise baseTimestamp + delta (also when the cleaner set a delete horizon, KIP-534).
 */
export function decodeRecordBatches(
  batches: readonly RawRecordsBatch[],
  fromOffset: bigint,
): { records: FetchedRecord[]; nextOffset: bigint; controlBatches: number } {
  const records: FetchedRecord[] = [];
  let nextOffset = fromOffset;
  let controlBatches = 0;
  for (const batch of batches) {
    const end = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
    if (end > nextOffset) nextOffset = end;
    if ((batch.attributes & controlBatchBit) !== 0) {
      if (end > fromOffset) controlBatches++;
      continue;
    }
    const logAppendTime = (batch.attributes & logAppendTimeBit) !== 0;
    for (const r of batch.records) {
      const offset = batch.firstOffset + BigInt(r.offsetDelta);
      if (offset < fromOffset) continue;
      records.push({
        offset,
        timestamp: Number(logAppendTime ? batch.maxTimestamp : batch.firstTimestamp + r.timestampDelta),
        key: r.key ?? null,
        value: r.value ?? null,
        headers: r.headers.map(([k, v]) => ({ key: k ? k.toString("utf8") : "", value: v ?? null })),
      });
    }
  }
  return { records, nextOffset, controlBatches };
}

/** One partition of a Fetch response as a FetchResult: records, or `{ error }` with the Kafka error name. */
export function reshapeFetchedPartition(raw: RawFetchResponsePartition, fromOffset: bigint): FetchResult {
  if (raw.errorCode !== 0) return { error: kafkaErrorName(raw.errorCode) };
  const { records, nextOffset, controlBatches } = decodeRecordBatches(raw.records ?? [], fromOffset);
  return { records, highWatermark: raw.highWatermark, logStartOffset: raw.logStartOffset, nextOffset, controlBatches };
}
