import { describe, expect, it } from "vitest";
import { readCheckpointTiming } from "@/lib/mm2";

describe("readCheckpointTiming (MirrorCheckpointConfig)", () => {
  it("takes MM2's defaults: checkpoints every 60 s, new groups every 600 s", () => {
    expect(readCheckpointTiming({})).toEqual({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 });
  });

  it("reads both intervals in seconds", () => {
    expect(readCheckpointTiming({ "emit.checkpoints.interval.seconds": "5", "refresh.groups.interval.seconds": " 30 " })).toEqual({
      emitIntervalMs: 5_000,
      refreshGroupsIntervalMs: 30_000,
    });
  });

  it("reads a disabled setting, or a negative interval, as never", () => {
    expect(readCheckpointTiming({ "emit.checkpoints.enabled": "FALSE", "refresh.groups.interval.seconds": "-1" })).toEqual({
      emitIntervalMs: null,
      refreshGroupsIntervalMs: null,
    });
  });

  it("keeps the default for a value Connect would reject", () => {
    expect(readCheckpointTiming({ "emit.checkpoints.interval.seconds": "1m" }).emitIntervalMs).toBe(60_000);
  });
});
