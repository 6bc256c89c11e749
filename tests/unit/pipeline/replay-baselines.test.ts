import { describe, expect, it } from "vitest";
import { findDigestDifference, listBaselines, readBaselineDigests, replayBaseline } from "@/scripts/replay/baselines";

/**
 * Issue 32's "no behaviour change, proven": recorded cycles (tests/recordings, README there) replayed through today's
 * pipeline give, cycle by cycle, the digests the pipeline gave when they were committed — findings, evidence, alert
 * transitions, risks, translations and the catch-up window. The recordings are replayed as read back (plain objects),
 * the synthetic worlds as the collector hands cycles over (buildFlow's rows): both readers' paths give the digests the
 * pre-rewrite pipeline gave. synthetic-100k runs in `npm run replay -- --check` (minutes).
 */
describe("the replay baselines", () => {
  const baselines = listBaselines().filter((b) => b.inSuite);

  it("include a real soak, a real fault run and synthetic worlds of 2,000 and 10,000 partitions, each with a restart", () => {
    expect(baselines.map((b) => b.name).sort()).toEqual(["faults-detection", "sandbox-workload", "soak", "synthetic-10k", "synthetic-2k"]);
    expect(baselines.every((b) => b.restartBefore.length > 0)).toBe(true);
  });

  for (const baseline of baselines) {
    it(`${baseline.name}: every cycle's digest is the baseline's`, async () => {
      const expected = readBaselineDigests(baseline);
      const replayed = await replayBaseline(baseline);
      expect(findDigestDifference(expected, replayed)).toBeNull();
      // The baseline judges something: alerts fired in it (the sandbox workload's quiet run excepted).
      if (baseline.name !== "sandbox-workload") expect(replayed.some((c) => c.firing.length > 0)).toBe(true);
    }, 300_000);
  }
});
