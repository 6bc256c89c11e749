import { createRecordsBatch, Reader, readRecordsBatch } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { reshapeFetchedPartition, summarizeRecordBatches } from "@/lib/kafka/record-batches";
import type { RawFetchResponsePartition, RawRecordsBatch } from "@/lib/kafka/types";

const transactional = 0x10;
const control = 0x20;

/** A real v2 batch (encoded, then parsed by platformatic) at `firstOffset`, from `producerId`, with extra attribute bits. */
function makeBatch(firstOffset: bigint, keys: Buffer[], producerId: bigint, attributes = 0): RawRecordsBatch {
  const messages = keys.map((key, i) => ({ topic: "t", key, value: Buffer.from(`v${i}`), timestamp: 1_700_000_000_000n + BigInt(i) }));
  const batch = readRecordsBatch(Reader.from(createRecordsBatch(messages)));
  return { ...batch, firstOffset, producerId, attributes: batch.attributes | attributes };
}

/** A control record's key as the transaction coordinator writes it: version 0, then the type (0 ABORT, 1 COMMIT). */
const markerKey = (type: number) => Buffer.from([0, 0, 0, type]);
const dataKeys = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`k${i}`));

describe("summarizeRecordBatches", () => {
  it("gives each batch its offsets, producer, transactional bit and marker type", () => {
    const batches = [
      makeBatch(0n, dataKeys(3), 7n, transactional),
      makeBatch(3n, dataKeys(1), -1n),
      makeBatch(4n, [markerKey(0)], 7n, transactional | control),
      makeBatch(5n, dataKeys(2), 8n, transactional),
      makeBatch(7n, [markerKey(1)], 8n, transactional | control),
    ];
    expect(summarizeRecordBatches(batches, 0n)).toEqual([
      { baseOffset: 0n, lastOffset: 2n, records: 3, producerId: 7n, transactional: true, control: null },
      { baseOffset: 3n, lastOffset: 3n, records: 1, producerId: -1n, transactional: false, control: null },
      { baseOffset: 4n, lastOffset: 4n, records: 1, producerId: 7n, transactional: true, control: "abort" },
      { baseOffset: 5n, lastOffset: 6n, records: 2, producerId: 8n, transactional: true, control: null },
      { baseOffset: 7n, lastOffset: 7n, records: 1, producerId: 8n, transactional: true, control: "commit" },
    ]);
  });

  it("leaves out batches before the fetch offset and counts only the records at or after it", () => {
    const batches = [makeBatch(0n, dataKeys(2), 7n, transactional), makeBatch(2n, dataKeys(4), 7n, transactional)];
    expect(summarizeRecordBatches(batches, 4n)).toEqual([{ baseOffset: 2n, lastOffset: 5n, records: 2, producerId: 7n, transactional: true, control: null }]);
  });

  it("calls a control record with another type (or a short key) other", () => {
    expect(summarizeRecordBatches([makeBatch(0n, [markerKey(2)], 7n, control), makeBatch(1n, [Buffer.from([0])], 7n, control)], 0n).map((b) => b.control)).toEqual(["other", "other"]);
  });
});

describe("reshapeFetchedPartition, read_committed", () => {
  const raw = (records: RawRecordsBatch[]): RawFetchResponsePartition => ({
    partitionIndex: 0,
    errorCode: 0,
    highWatermark: 9n,
    lastStableOffset: 6n,
    logStartOffset: 0n,
    abortedTransactions: [{ producerId: 7n, firstOffset: 0n }],
    preferredReadReplica: -1,
    records,
  });

  it("adds the last stable offset, the aborted transactions and the batch summaries", () => {
    const batches = [makeBatch(0n, dataKeys(3), 7n, transactional), makeBatch(3n, [markerKey(0)], 7n, transactional | control)];
    const result = reshapeFetchedPartition(raw(batches), 0n, true);
    expect("transactions" in result && result.transactions).toEqual({
      lastStableOffset: 6n,
      abortedTransactions: [{ producerId: 7n, firstOffset: 0n }],
      batches: [
        { baseOffset: 0n, lastOffset: 2n, records: 3, producerId: 7n, transactional: true, control: null },
        { baseOffset: 3n, lastOffset: 3n, records: 1, producerId: 7n, transactional: true, control: "abort" },
      ],
    });
  });

  it("adds nothing to a read_uncommitted result", () => {
    expect("transactions" in reshapeFetchedPartition(raw([makeBatch(0n, dataKeys(1), 7n)]), 0n)).toBe(false);
  });
});
