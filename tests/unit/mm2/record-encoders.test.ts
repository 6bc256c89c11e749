import { describe, expect, it } from "vitest";
import { decodeCheckpoint, decodeHeartbeat, decodeOffsetSync } from "@/lib/mm2/record-decoders";
import {
  encodeCheckpointKey,
  encodeCheckpointValue,
  encodeHeartbeatKey,
  encodeHeartbeatValue,
  encodeOffsetSyncKey,
  encodeOffsetSyncValue,
} from "@/lib/mm2/record-encoders";

describe("record encoders", () => {
  it("encode the documented OffsetSync key for orders/3 byte for byte", () => {
    expect(encodeOffsetSyncKey({ topic: "orders", partition: 3 }).toString("hex")).toBe("00066f726465727300000003");
  });

  it("round-trip offset syncs, including int64 extremes", () => {
    for (const [upstream, downstream] of [
      [0n, 0n],
      [9007199254740993n, 1n],
      [9223372036854775807n, -9223372036854775808n],
    ] as const) {
      const sync = { topic: "ünïcode.topic", partition: 2147483647, upstream, downstream };
      expect(decodeOffsetSync(encodeOffsetSyncKey(sync), encodeOffsetSyncValue(sync))).toEqual(sync);
    }
  });

  it("round-trip checkpoints with metadata", () => {
    const checkpoint = { group: "billing", topic: "east.orders", partition: 7, upstream: 42n, downstream: 40n, metadata: "m=1" };
    expect(decodeCheckpoint(encodeCheckpointKey(checkpoint), encodeCheckpointValue(checkpoint))).toEqual(checkpoint);
  });

  it("write version 0 before the checkpoint and heartbeat values", () => {
    expect(encodeCheckpointValue({ upstream: 1n, downstream: 2n, metadata: "" }).readInt16BE(0)).toBe(0);
    expect(encodeHeartbeatValue({ timestampMs: 5 }).toString("hex")).toBe("00000000000000000005");
  });

  it("round-trip heartbeats", () => {
    const heartbeat = { sourceClusterAlias: "east", targetClusterAlias: "west", timestampMs: 1700000000123 };
    expect(decodeHeartbeat(encodeHeartbeatKey(heartbeat), encodeHeartbeatValue(heartbeat))).toEqual(heartbeat);
  });

  it("refuse values the protocol cannot carry", () => {
    expect(() => encodeOffsetSyncValue({ upstream: 1n << 63n, downstream: 0n })).toThrow(RangeError);
    expect(() => encodeOffsetSyncKey({ topic: "x".repeat(32768), partition: 0 })).toThrow(RangeError);
  });
});
