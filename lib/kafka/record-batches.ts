import { kafkaErrorName } from "./errors";
import type { BatchSummary, FetchedRecord, FetchedTransactions, FetchResult, RawFetchResponsePartition, RawRecordsBatch } from "./types";

/** RecordBatch attribute bits (Kafka's DefaultRecordBatch): bit 3 timestamp type, bit 4 transactional, bit 5 control batch. */
const logAppendTimeBit = 0x08;
const transactionalBit = 0x10;
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
        ...(logAppendTime ? { logAppendTime: true as const } : {}),
      });
    }
  }
  return { records, nextOffset, controlBatches };
}

/**
 * The batches ending at or after `fromOffset`, without record contents: offsets, producer, the
 * transactional bit and, for control batches, the marker type — the control record's key is
 * (version INT16, type INT16) with type 0 ABORT and 1 COMMIT (Kafka's ControlRecordType.parse).
 */
export function summarizeRecordBatches(batches: readonly RawRecordsBatch[], fromOffset: bigint): BatchSummary[] {
  const summaries: BatchSummary[] = [];
  for (const batch of batches) {
    const lastOffset = batch.firstOffset + BigInt(batch.lastOffsetDelta);
    if (lastOffset < fromOffset) continue;
    const control = (batch.attributes & controlBatchBit) !== 0;
    const records = control ? batch.records.length : batch.records.filter((r) => batch.firstOffset + BigInt(r.offsetDelta) >= fromOffset).length;
    summaries.push({
      baseOffset: batch.firstOffset,
      lastOffset,
      records,
      producerId: batch.producerId,
      transactional: (batch.attributes & transactionalBit) !== 0,
      control: control ? readControlType(batch.records[0]?.key) : null,
    });
  }
  return summaries;
}

function readControlType(key: Buffer | null | undefined): "commit" | "abort" | "other" {
  if (!key || key.length < 4) return "other";
  const type = key.readInt16BE(2);
  return type === 0 ? "abort" : type === 1 ? "commit" : "other";
}

/** One partition of a Fetch response as a FetchResult: records, or `{ error }` with the Kafka error name. */
export function reshapeFetchedPartition(raw: RawFetchResponsePartition, fromOffset: bigint, readCommitted = false): FetchResult {
  if (raw.errorCode !== 0) return { error: kafkaErrorName(raw.errorCode) };
  const { records, nextOffset, controlBatches } = decodeRecordBatches(raw.records ?? [], fromOffset);
  const base = { records, highWatermark: raw.highWatermark, logStartOffset: raw.logStartOffset, nextOffset, controlBatches };
  if (!readCommitted) return base;
  const transactions: FetchedTransactions = {
    lastStableOffset: raw.lastStableOffset,
    abortedTransactions: (raw.abortedTransactions ?? []).map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset })),
    batches: summarizeRecordBatches(raw.records ?? [], fromOffset),
  };
  return { ...base, transactions };
}
