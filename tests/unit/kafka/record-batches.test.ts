import { createRecordsBatch, Reader, readRecordsBatch } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { decodeRecordBatches, reshapeFetchedPartition } from "@/lib/kafka/record-batches";
import type { RawRecordsBatch } from "@/lib/kafka/types";

/** A real v2 record batch (encoded, then parsed by platformatic), placed at `firstOffset`. */
function makeBatch(firstOffset: bigint, values: string[], opts: { attributes?: number; timestamp?: bigint } = {}): RawRecordsBatch {
  const ts = opts.timestamp ?? 1_700_000_000_000n;
  const messages = values.map((v, i) => ({
    topic: "t",
    key: Buffer.from(`k${i}`),
    value: Buffer.from(v),
    timestamp: ts + BigInt(i),
    headers: new Map([[Buffer.from("h"), Buffer.from(`v${i}`)]]),
  }));
  const batch = readRecordsBatch(Reader.from(createRecordsBatch(messages)));
  return { ...batch, firstOffset, attributes: batch.attributes | (opts.attributes ?? 0) };
}

describe("decodeRecordBatches", () => {
  it("gives each record its absolute offset, create time, key, value and headers", () => {
    const { records, nextOffset } = decodeRecordBatches([makeBatch(10n, ["a", "b"])], 10n);
    expect(nextOffset).toBe(12n);
    expect(records).toEqual([
      { offset: 10n, timestamp: 1_700_000_000_000, key: Buffer.from("k0"), value: Buffer.from("a"), headers: [{ key: "h", value: Buffer.from("v0") }] },
      { offset: 11n, timestamp: 1_700_000_000_001, key: Buffer.from("k1"), value: Buffer.from("b"), headers: [{ key: "h", value: Buffer.from("v1") }] },
    ]);
  });

  it("drops records before the requested offset (a fetch starts at the batch holding it)", () => {
    const { records, nextOffset } = decodeRecordBatches([makeBatch(10n, ["a", "b", "c"]), makeBatch(13n, ["d"])], 12n);
    expect(records.map((r) => r.offset)).toEqual([12n, 13n]);
    expect(nextOffset).toBe(14n);
  });

  it("skips control batches but moves past their offsets, and counts those at or after the offset", () => {
    const batches = [makeBatch(0n, ["marker"], { attributes: 0x20 }), makeBatch(1n, ["a"]), makeBatch(2n, ["marker"], { attributes: 0x20 })];
    const { records, nextOffset, controlBatches } = decodeRecordBatches(batches, 1n);
    expect(records.map((r) => r.value?.toString())).toEqual(["a"]);
    expect(nextOffset).toBe(3n);
    expect(controlBatches).toBe(1);
  });

  it("uses the batch's max timestamp for every record when the topic uses LogAppendTime", () => {
    const { records } = decodeRecordBatches([makeBatch(0n, ["a", "b"], { attributes: 0x08, timestamp: 5_000n })], 0n);
    expect(records.map((r) => r.timestamp)).toEqual([5_001, 5_001]);
    // Marked, so the content audit does not compare a timestamp the broker rewrote.
    expect(records.map((r) => r.logAppendTime)).toEqual([true, true]);
    expect(decodeRecordBatches([makeBatch(0n, ["a"])], 0n).records[0]).not.toHaveProperty("logAppendTime");
  });

  it("keeps the requested offset when nothing came back", () => {
    expect(decodeRecordBatches([], 42n)).toEqual({ records: [], nextOffset: 42n, controlBatches: 0 });
  });
});

describe("reshapeFetchedPartition", () => {
  const raw = { partitionIndex: 0, errorCode: 0, highWatermark: 3n, lastStableOffset: 3n, logStartOffset: 1n, abortedTransactions: [], preferredReadReplica: -1 };

  it("returns records with the high watermark and log start offset", () => {
    const result = reshapeFetchedPartition({ ...raw, records: [makeBatch(1n, ["x", "y"])] }, 1n);
    expect(result).toMatchObject({ highWatermark: 3n, logStartOffset: 1n, nextOffset: 3n });
    expect("records" in result && result.records.map((r) => r.offset)).toEqual([1n, 2n]);
  });

  it("reports OFFSET_OUT_OF_RANGE by name", () => {
    expect(reshapeFetchedPartition({ ...raw, errorCode: 1 }, 0n)).toEqual({ error: "OFFSET_OUT_OF_RANGE" });
  });
});
