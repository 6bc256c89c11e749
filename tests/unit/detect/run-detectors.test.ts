import { describe, expect, it } from "vitest";
import { createDetectorMemory, parseDetectorMemory } from "@/lib/detect/memory";
import { defaultThresholds, thresholdsSchema } from "@/lib/config/thresholds";
import { makeFlowPartition, makeHistory, makeSnapshot, runCycles } from "./fixtures";

/** MM2 keeps up: 100 records per cycle, one sync per 100 records. */
function healthyCycles(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const end = BigInt(1000 + i * 100);
    const syncs: [number, number][] = Array.from({ length: i + 1 }, (_, j) => [999 + j * 100, 4999 + j * 100]);
    return {
      snapshot: makeSnapshot({
        cycle: i + 1,
        partitions: [makeFlowPartition({ sourceLogStart: end - 500n, sourceLogEnd: end, mm2Position: end, targetLogEnd: end + 4000n, latestSync: { upstream: end - 1n, downstream: end + 3999n } })],
      }),
      history: makeHistory(syncs),
    };
  });
}

describe("runDetectors", () => {
  it("finds nothing in a healthy steady state", () => {
    expect(runCycles(healthyCycles(4)).flatMap((o) => o.findings)).toEqual([]);
  });

  it("returns a JSON-safe memory that reads back unchanged", () => {
    const outputs = runCycles(healthyCycles(3));
    const memory = outputs[2]?.memory;
    const json: unknown = JSON.parse(JSON.stringify(memory));
    expect(parseDetectorMemory(json)).toEqual({ memory, error: null });
    expect(memory?.syncMarkers).toEqual({ "east->west|orders|2": { upstream: "1199", downstream: "5199" } });
  });

  it("starts from an empty memory when the persisted one is unreadable, and says why", () => {
    const { memory, error } = parseDetectorMemory({ version: 1, events: "nope" });
    expect(memory).toEqual(createDetectorMemory());
    expect(error).toContain("events");
  });
});

describe("thresholds", () => {
  it("fills every omitted threshold with its default", () => {
    expect(thresholdsSchema.parse({ lagRecords: 5 })).toEqual({ ...defaultThresholds, lagRecords: 5 });
    expect(defaultThresholds).toMatchObject({ stallAfterMs: 120_000, retentionHorizonMs: 3_600_000 });
  });

  it("rejects invalid values naming the field", () => {
    const result = thresholdsSchema.safeParse({ stallAfterMs: -1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["stallAfterMs"]);
  });
});
