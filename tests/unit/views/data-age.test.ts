import { describe, expect, it } from "vitest";
import { defaultThresholds } from "@/lib/config/thresholds";
import { assessFlowReadiness } from "@/lib/detect/readiness/verdict";
import { ageFlowHealth, ageFlowReadiness, type DataAge } from "@/lib/views/data-age";
import { showFlowReadiness } from "@/lib/views/readiness";
import { makeHealthySnapshot } from "../detect/readiness-fixtures";

/** Pages and the readiness API on stale data (a stuck collector): nothing judged on it is shown as current. */

const ready = (() => {
  const snapshot = makeHealthySnapshot();
  const translation = {
    flow: "east->west", source: "east", target: "west", at: snapshot.takenAt, syncsLoaded: true,
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, groups: [], excludedGroups: [],
    uncheckpointedGroups: [],
    totals: { groups: 0, partitions: 0, translated: 0, untranslatable: 0, rereadRecords: 0n, failoverReplayRecords: 0n, skippingPartitions: 0, groupLag: 0n, oldestCheckpointAgeMs: null },
  };
  const input = { snapshot, flow: snapshot.flows[0]!, translation, alerts: [], thresholds: defaultThresholds, rpoSeconds: 300, now: snapshot.takenAt };
  return showFlowReadiness(assessFlowReadiness(input));
})();
const age = (ageMs: number): DataAge => ({ cycle: 41, ageMs, maxAgeMs: 30_000, stale: ageMs > 30_000 });
const healthy = { tone: "ok" as const, label: "Healthy", reason: null };

describe("ageFlowReadiness", () => {
  it("leaves a verdict on fresh data as judged", () => {
    expect(ready.verdict).toBe("ready");
    expect(ageFlowReadiness(ready, age(30_000))).toBe(ready);
  });

  it("makes a verdict on stale data unknown, the freshness check first saying what it was", () => {
    const aged = ageFlowReadiness(ready, age(240_000));
    expect([aged.verdict, aged.checks.length, aged.checks.slice(1)]).toEqual(["unknown", ready.checks.length + 1, ready.checks]);
    expect(aged.checks[0]).toEqual({
      id: "freshness",
      title: "Data is current",
      status: "unknown",
      message: `The newest data is cycle 41's, 4 min old (fresh data is at most 30 s old): the collector is stuck or stopped. As of that cycle the verdict was "ready".`,
      items: [],
    });
  });
});

describe("ageFlowHealth", () => {
  it("shows a flow's health on stale data as stale, with what it was", () => {
    expect(ageFlowHealth(healthy, age(30_000))).toBe(healthy);
    expect(ageFlowHealth(healthy, age(45_000))).toEqual({ tone: "warn", label: "Stale data", reason: "as of cycle 41, 45 s ago: Healthy" });
  });
});
