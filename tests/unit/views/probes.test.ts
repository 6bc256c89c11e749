import { describe, expect, it } from "vitest";
import { assessReadiness, describeStalePages } from "@/lib/views/probes";

const T0 = 1_800_000_000_000;
const pollIntervalMs = 10_000;

describe("assessReadiness", () => {
  it("role collector is ready while its last cycle finished within 3 poll intervals, stale after, with the reason", () => {
    const model = { cycle: 41, builtAt: T0 };
    const at = (ms: number) => assessReadiness({ role: "collector", model, now: T0 + ms, startedAt: T0 - 600_000, pollIntervalMs });
    expect([at(0).status, at(30_000).status, at(30_001).status]).toEqual(["ready", "ready", "stale"]);
    expect(at(30_000)).toEqual({
      status: "ready",
      role: "collector",
      cycle: 41,
      lastCycleAt: T0,
      ageMs: 30_000,
      maxAgeMs: 30_000,
      uptimeMs: 630_000,
      reason: null,
      staleData: null,
    });
    expect(at(45_000).reason).toBe(
      "the last poll cycle (41) finished 45 s ago, more than 3 poll intervals (30 s): the collector is stuck or stopped; see its log and /api/health",
    );
  });

  it("roles all and web stay ready with old data, saying how old and why (the pages are how operators see it)", () => {
    const at = (role: "all" | "web", ms: number) =>
      assessReadiness({ role, model: { cycle: 7, builtAt: T0 }, now: T0 + ms, startedAt: T0 - 1_000, pollIntervalMs, storeReadAt: T0 + ms - 1_500 });
    expect([at("all", 30_000).status, at("all", 30_000).staleData, at("all", 30_001).status]).toEqual(["ready", null, "ready"]);
    expect([at("all", 45_000).ageMs, at("all", 45_000).reason, at("all", 45_000).staleData]).toEqual([
      45_000,
      null,
      "the last poll cycle (cycle 7) finished 45 s ago, more than 3 poll intervals (30 s): a collector is stuck or stopped; " +
        "the pages show its data with its age (still ready: they are how you see it); see the collector's log and /api/health",
    ]);
    expect([at("web", 40_000).status, at("web", 40_000).staleData]).toEqual([
      "ready",
      "the newest read model the collectors published (cycle 7) finished 40 s ago, more than 3 poll intervals (30 s): a collector is stuck " +
        "or stopped; the pages show its data with its age (still ready: they are how you see it); see the collectors' logs and /api/health",
    ]);
  });

  it("a web instance that has not read the store for 3 poll intervals is not ready: another replica may read it", () => {
    const model = { cycle: 7, builtAt: T0 - 2_000 };
    const at = (unreadMs: number) => assessReadiness({ role: "web", model, now: T0, startedAt: T0 - 600_000, pollIntervalMs, storeReadAt: T0 - unreadMs });
    expect([at(30_000).status, at(30_001).status]).toEqual(["ready", "stale"]);
    // Role all is one process: no other replica to send traffic to, so its own failed reads never make it unready.
    const all = assessReadiness({ role: "all", model, now: T0, startedAt: T0 - 600_000, pollIntervalMs, storeReadAt: T0 - 40_000 });
    expect([all.status, all.reason, all.staleData]).toEqual(["ready", null, null]);
    expect(at(40_000).reason).toBe(
      "this process has not read the store for 40 s, more than 3 poll intervals (30 s) (it serves cycle 7, built 2.0 s ago): another replica may read it; " +
        "see this process's log for the store's error",
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
      staleData: null,
    });
    expect([at(31_000, "collector").status, at(31_000, "collector").reason]).toEqual([
      "stale",
      "the first poll cycle has not finished (31 s after this process started); see the collector's log and /api/health",
    ]);
    expect(at(31_000, "web").reason).toBe(
      "no collector has published a read model to the store yet (31 s after this process started); check that a GAPWATCH_ROLE=collector process runs against the same PostgreSQL",
    );
  });
});

describe("describeStalePages", () => {
  const model = { cycle: 7, builtAt: T0 };
  const view = (role: "all" | "web", ms: number, storeReadAt = T0 + ms) =>
    assessReadiness({ role, model, now: T0 + ms, startedAt: T0 - 1_000, pollIntervalMs, storeReadAt });

  it("says nothing while the data is fresh or before any", () => {
    const none = assessReadiness({ role: "all", model: null, now: T0 + 60_000, startedAt: T0, pollIntervalMs });
    expect([describeStalePages(view("all", 30_000)), describeStalePages(none)]).toEqual([null, null]);
  });

  it("says how old the data is, what that hides and what to check", () => {
    expect(describeStalePages(view("all", 240_000))).toBe(
      "Stale data: this page shows cycle 7, which finished 4 min ago (fresh data is at most 30 s old). The collector is stuck or stopped, " +
        "so figures, alerts and failover readiness since then are not shown. Check /api/health and the collector's log.",
    );
    expect(describeStalePages(view("web", 45_000))).toMatch(/^Stale data: this page shows cycle 7, which finished 45 s ago .*\. A collector stopped publishing \(the oldest part of this page counts\), so /);
    expect(describeStalePages(view("web", 45_000, T0))).toBe(
      "Stale data: this page shows cycle 7, which finished 45 s ago (fresh data is at most 30 s old). This server cannot read the store, " +
        "so figures, alerts and failover readiness since then are not shown. Check its log for the store's error.",
    );
  });
});
