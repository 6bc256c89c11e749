/**
 * Byte fixtures are written by hand from the layouts in docs/kafka-mm2-facts.md (OffsetSync.java,
 * Checkpoint.java, Heartbeat.java), not produced by our encoders.
 */
import { describe, expect, it } from "vitest";
import { ForeignRecordError, MalformedRecordError } from "@/lib/mm2/errors";
import { decodeAll, decodeCheckpoint, decodeHeartbeat, decodeOffsetSync } from "@/lib/mm2/record-decoders";

const hex = (spaced: string): Buffer => Buffer.from(spaced.replace(/ /g, ""), "hex");

/** Runs `fn` and returns the MalformedRecordError's reason (fails if anything else happens). */
function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedRecordError);
    return (error as MalformedRecordError).reason;
  }
  return expect.fail("expected a MalformedRecordError");
}

const ORDERS_3_KEY = hex("0006 6f7264657273 00000003");
const SYNC_VALUE = hex("0000000000003039 0020000000000001"); // 12345, 2^53 + 1
const CHECKPOINT_KEY = hex("0002 6731 000b 656173742e6f7264657273 00000000"); // g1, east.orders, 0
const CHECKPOINT_VALUE = hex("0000 0000000000000064 00000000000000c8 0005 636166c3a9"); // v0, 100, 200, "café"
const HEARTBEAT_KEY = hex("0004 65617374 0004 77657374"); // east, west
const HEARTBEAT_VALUE = hex("0000 0000018bcfe56800"); // v0, 1700000000000

describe("decodeOffsetSync", () => {
  it("decodes the documented orders/3 key and a value beyond 2^53 exactly", () => {
    expect(decodeOffsetSync(ORDERS_3_KEY, SYNC_VALUE)).toEqual({
      topic: "orders",
      partition: 3,
      upstream: 12345n,
      downstream: 9007199254740993n,
    });
  });

  it("decodes the largest int64 offsets", () => {
    const max = hex("7fffffffffffffff 7fffffffffffffff");
    expect(decodeOffsetSync(ORDERS_3_KEY, max).downstream).toBe(9223372036854775807n);
  });

  it("rejects a value that is not exactly 16 bytes", () => {
    expect(reasonOf(() => decodeOffsetSync(ORDERS_3_KEY, SYNC_VALUE.subarray(0, 12)))).toBe(
      "OffsetSync value must be 16 bytes, got 12",
    );
    expect(reasonOf(() => decodeOffsetSync(ORDERS_3_KEY, Buffer.concat([SYNC_VALUE, hex("00")])))).toBe(
      "OffsetSync value must be 16 bytes, got 17",
    );
  });

  it("rejects a truncated key with the field it was reading", () => {
    expect(reasonOf(() => decodeOffsetSync(ORDERS_3_KEY.subarray(0, 10), SYNC_VALUE))).toMatch(/truncated reading partition/);
    expect(reasonOf(() => decodeOffsetSync(hex("0006 6f72"), SYNC_VALUE))).toMatch(/truncated reading topic/);
    expect(reasonOf(() => decodeOffsetSync(hex("00"), SYNC_VALUE))).toMatch(/truncated reading topic length/);
  });

  it("rejects trailing bytes after the key", () => {
    expect(reasonOf(() => decodeOffsetSync(Buffer.concat([ORDERS_3_KEY, hex("ff")]), SYNC_VALUE))).toBe(
      "OffsetSync key has 1 trailing byte(s) after 12",
    );
  });

  it("rejects a negative string length instead of reading it as null", () => {
    expect(reasonOf(() => decodeOffsetSync(hex("ffff 00000003"), SYNC_VALUE))).toBe("OffsetSync key topic has negative length -1");
  });

  it("rejects a negative partition and invalid UTF-8", () => {
    expect(reasonOf(() => decodeOffsetSync(hex("0001 61 ffffffff"), SYNC_VALUE))).toMatch(/partition must be >= 0, got -1/);
    expect(reasonOf(() => decodeOffsetSync(hex("0001 ff 00000000"), SYNC_VALUE))).toMatch(/not valid UTF-8/);
  });

  it("rejects null keys and values", () => {
    expect(reasonOf(() => decodeOffsetSync(null, SYNC_VALUE))).toBe("OffsetSync key is null");
    expect(reasonOf(() => decodeOffsetSync(ORDERS_3_KEY, null))).toBe("OffsetSync value is null");
  });
});

describe("decodeCheckpoint", () => {
  it("decodes group, renamed topic, partition, offsets and UTF-8 metadata", () => {
    expect(decodeCheckpoint(CHECKPOINT_KEY, CHECKPOINT_VALUE)).toEqual({
      group: "g1",
      topic: "east.orders",
      partition: 0,
      upstream: 100n,
      downstream: 200n,
      metadata: "café",
    });
  });

  it("rejects an unknown value version", () => {
    const v1 = Buffer.from(CHECKPOINT_VALUE);
    v1.writeInt16BE(1, 0);
    expect(reasonOf(() => decodeCheckpoint(CHECKPOINT_KEY, v1))).toBe("Checkpoint value version must be 0, got 1");
  });

  it("rejects a truncated value, trailing bytes and a negative metadata length", () => {
    expect(reasonOf(() => decodeCheckpoint(CHECKPOINT_KEY, CHECKPOINT_VALUE.subarray(0, 12)))).toMatch(/truncated reading offset/);
    expect(reasonOf(() => decodeCheckpoint(CHECKPOINT_KEY, Buffer.concat([CHECKPOINT_VALUE, hex("00")])))).toMatch(/trailing/);
    const negative = hex("0000 0000000000000064 00000000000000c8 fffe");
    expect(reasonOf(() => decodeCheckpoint(CHECKPOINT_KEY, negative))).toBe("Checkpoint value metadata has negative length -2");
  });

  it("rejects a key missing its partition and null parts", () => {
    expect(reasonOf(() => decodeCheckpoint(CHECKPOINT_KEY.subarray(0, 17), CHECKPOINT_VALUE))).toMatch(/truncated reading partition/);
    expect(reasonOf(() => decodeCheckpoint(null, CHECKPOINT_VALUE))).toBe("Checkpoint key is null");
    expect(reasonOf(() => decodeCheckpoint(CHECKPOINT_KEY, null))).toBe("Checkpoint value is null");
  });
});

describe("decodeHeartbeat", () => {
  it("decodes aliases and the millisecond timestamp", () => {
    expect(decodeHeartbeat(HEARTBEAT_KEY, HEARTBEAT_VALUE)).toEqual({
      sourceClusterAlias: "east",
      targetClusterAlias: "west",
      timestampMs: 1700000000000,
    });
  });

  it("rejects a bad version, a truncated value, trailing bytes and implausible timestamps", () => {
    expect(reasonOf(() => decodeHeartbeat(HEARTBEAT_KEY, hex("0007 0000018bcfe56800")))).toBe(
      "Heartbeat value version must be 0, got 7",
    );
    expect(reasonOf(() => decodeHeartbeat(HEARTBEAT_KEY, hex("0000 0000018b")))).toMatch(/truncated reading timestamp/);
    expect(reasonOf(() => decodeHeartbeat(HEARTBEAT_KEY, hex("0000 0000018bcfe56800 00")))).toMatch(/trailing/);
    expect(reasonOf(() => decodeHeartbeat(HEARTBEAT_KEY, hex("0000 ffffffffffffffff")))).toMatch(/not a plausible/);
    expect(reasonOf(() => decodeHeartbeat(HEARTBEAT_KEY, hex("0000 7fffffffffffffff")))).toMatch(/not a plausible/);
  });

  it("rejects a key with only one alias", () => {
    expect(reasonOf(() => decodeHeartbeat(hex("0004 65617374"), HEARTBEAT_VALUE))).toMatch(/truncated reading targetClusterAlias/);
  });
});

describe("decodeAll", () => {
  it("decodes the good records, counts the bad ones and keeps the last reason", () => {
    const result = decodeAll(
      [
        { key: ORDERS_3_KEY, value: SYNC_VALUE },
        { key: ORDERS_3_KEY, value: hex("00") },
        { key: null, value: SYNC_VALUE },
        { key: ORDERS_3_KEY, value: SYNC_VALUE },
      ],
      decodeOffsetSync,
    );
    expect(result.decoded).toHaveLength(2);
    expect(result.malformed).toBe(2);
    expect(result.skipped).toBe(0);
    expect(result.lastError).toBe("OffsetSync key is null");
    expect(result.malformedAt).toEqual([1, 2]);
  });

  it("counts foreign records as skipped, not malformed", () => {
    const foreign = (): never => {
      throw new ForeignRecordError("another connector");
    };
    expect(decodeAll([{ key: null, value: null }], foreign)).toEqual({ decoded: [], malformed: 0, skipped: 1, lastError: null, malformedAt: [] });
  });

  it("rethrows errors that are not MalformedRecordError, since they are bugs", () => {
    const broken = (): never => {
      throw new TypeError("bug");
    };
    expect(() => decodeAll([{ key: null, value: null }], broken)).toThrow(TypeError);
  });
});
