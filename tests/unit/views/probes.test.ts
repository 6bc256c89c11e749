import { describe, expect, it } from "vitest";
import { assessReadiness } from "@/lib/views/probes";

const T0 = 1_800_000_000_000;
const pollIntervalMs = 10_000;

describe("assessReadiness", () => {
  it("is ready while the last cycle finished within 3 poll intervals, stale after, with the reason", () => {
    const model = { cycle: 41, builtAt: T0 };
    const at = (ms: number) => assessReadiness({ role: "all", model, now: T0 + ms, startedAt: T0 - 600_000, pollIntervalMs });
    expect([at(0).status, at(30_000).status, at(30_001).status]).toEqual(["ready", "ready", "stale"]);
    expect(at(30_000)).toEqual({ status: "ready", role: "all", cycle: 41, lastCycleAt: T0, ageMs: 30_000, maxAgeMs: 30_000, uptimeMs: 630_000, reason: null });
    expect(at(45_000).reason).toBe(
      "the last poll cycle (41) finished 45 s ago, more than 3 poll intervals (30 s): the collector is stuck or stopped; see its log and /api/health",
    );
  });

  it("is never ready before the first cycle: starting for 3 intervals after the start, then stale", () => {
    const at = (uptimeMs: number, role: "collector" | "web") => assessReadiness({ role, model: null, now: T0 + uptimeMs, startedAt: T0, pollIntervalMs });
    expect(at(5_000, "collector")).toEqual({
      status: "starting",
      role: "collector",
      cycle: null,
      lastCycleAt: null,
      ageMs: null,
      maxAgeMs: 30_000,
      uptimeMs: 5_000,
      reason: "the first poll cycle has not finished (5.0 s after this process started); it reads every cluster and MM2's internal topics",
    });
    expect([at(31_000, "collector").status, at(31_000, "collector").reason]).toEqual([
      "stale",
      "the first poll cycle has not finished (31 s after this process started); see the collector's log and /api/health",
    ]);
    expect(at(31_000, "web").reason).toBe(
      "no collector has published a read model to the store yet (31 s after this process started); check that a GAPWATCH_ROLE=collector process runs against the same PostgreSQL",
    );
  });

  it("a web instance judges the published model's build time, whatever its own uptime", () => {
    const view = assessReadiness({ role: "web", model: { cycle: 7, builtAt: T0 - 40_000 }, now: T0, startedAt: T0 - 1_000, pollIntervalMs });
    expect([view.status, view.ageMs, view.reason]).toEqual([
      "stale",
      40_000,
      "the newest read model the collectors published (cycle 7) was built 40 s ago, more than 3 poll intervals (30 s): a collector stopped publishing or the store cannot be read; see the collectors' and this process's logs",
    ]);
  });
});
