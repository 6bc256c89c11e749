import { describe, expect, it } from "vitest";
import { formatOffsetRanges } from "@/lib/collector/malformed-records";
import { createRandom, runRecordFuzz } from "@/scripts/hardening/record-fuzz";

describe("hostile records through every MM2 and Connect topic decoder (seeded, 20,000 records)", () => {
  // About 2 s on a quiet 2-core machine; generous for a loaded CI run.
  it("crashes nothing, accounts for every record, and the collector counts every malformed one", { timeout: 60_000 }, () => {
    const report = runRecordFuzz(20_000, 15);
    expect(report.crashSamples).toEqual([]);
    expect(report.crashes).toBe(0);
    expect(report.unaccounted).toBe(0);
    expect(report.misread).toBe(0);
    expect(report.records).toBe(20_000);
    expect(report.decoded + report.malformed + report.foreign).toBe(20_000);
    // 500-record batches, round robin over the six decoders: 7 batches for the first four, 6 for the others.
    expect(Object.fromEntries(Object.entries(report.byTopic).map(([topic, t]) => [topic, t.records]))).toEqual({
      "mm2-offset-syncs.west.internal": 3500,
      "east.checkpoints.internal": 3500,
      heartbeats: 3500,
      "connect-offsets": 3500,
      "connect-status": 3000,
      "mm2-configs.east.internal": 3000,
    });
    for (const [topic, tally] of Object.entries(report.byTopic)) {
      expect(report.countedByCollector[`fuzz/${topic}`] ?? 0).toBe(tally.malformed);
      // Both kinds are exercised on every decoder: some records accepted, many rejected.
      expect(tally.decoded).toBeGreaterThan(200);
      expect(tally.malformed).toBeGreaterThan(1000);
    }
    // Deterministic: the same seed gives the same figures.
    expect(runRecordFuzz(3_000, 15)).toEqual(runRecordFuzz(3_000, 15));
  });

  it("the seeded PRNG is reproducible", () => {
    const a = createRandom(7);
    const b = createRandom(7);
    expect(Array.from({ length: 5 }, a)).toEqual(Array.from({ length: 5 }, b));
  });
});

describe("formatOffsetRanges (the collector's log line of malformed offsets)", () => {
  it("lists ascending offsets as ranges", () => {
    expect(formatOffsetRanges([3n, 4n, 5n, 7n, 9n, 10n])).toBe("3-5,7,9-10");
    expect(formatOffsetRanges([])).toBe("");
  });

  it("lists at most 100 ranges and says how many offsets it left out", () => {
    const offsets = Array.from({ length: 103 }, (_, i) => BigInt(i * 2));
    expect(formatOffsetRanges(offsets)).toBe(`${offsets.slice(0, 100).join(",")} (+3 more)`);
  });
});
