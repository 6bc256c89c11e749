import { describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { type Expectation, listOccurrences, matchAlerts, type Occurrence } from "@/scripts/soak/expectations";

const expectation = (over: Partial<Expectation>): Expectation => ({
  id: "x1",
  eventId: "e2-checkpoints-paused",
  type: "CHECKPOINT_STALE",
  severity: "warning",
  required: true,
  flow: "east->west",
  topic: null,
  partition: null,
  group: null,
  from: 1_000,
  to: 200_000,
  exact: {},
  contains: {},
  bounds: {},
  reason: "checkpoint connector paused",
  matched: [],
  ...over,
});

const occurrence = (over: Partial<Occurrence>): Occurrence => ({
  alertId: "a1",
  at: 90_000,
  transition: "fired",
  evidenceThen: null,
  type: "CHECKPOINT_STALE",
  severity: "warning",
  flow: "east->west",
  cluster: "west",
  topic: "orders",
  partition: 3,
  group: "gapwatch-fast",
  summary: "MM2 has not checkpointed gapwatch-fast on orders/3 for 1 min",
  evidence: {},
  ...over,
});

const neverFiring = () => false;

describe("soak expectations", () => {
  it("scopes an expectation to a group: another group's alert is false, the expectation missed", () => {
    const want = expectation({ group: "gapwatch-fast" });
    const result = matchAlerts([occurrence({ alertId: "a2", group: "gapwatch-soak-new-group" })], [want], [], neverFiring);
    expect(result.occurrences.map((o) => o.verdict)).toEqual(["false"]);
    expect(result.missed.map((e) => e.id)).toEqual(["x1"]);

    const met = matchAlerts([occurrence({})], [expectation({ group: "gapwatch-fast" })], [], neverFiring);
    expect(met.occurrences.map((o) => [o.verdict, o.expectationId])).toEqual([["expected", "x1"]]);
    expect(met.missed).toEqual([]);
  });

  it("whitelists a standing flag only on its topics", () => {
    const whitelist = [{ type: "ABORTED_RECORDS_COPIED" as const, topics: ["soak-tx"], reason: "aborted transactions copied" }];
    const aborted = (topic: string, alertId: string) => occurrence({ alertId, type: "ABORTED_RECORDS_COPIED", topic, partition: null, group: null });
    const result = matchAlerts([aborted("soak-tx", "a5"), aborted("orders", "a6")], [], whitelist, neverFiring);
    expect(result.occurrences.map((o) => [o.alertId, o.verdict])).toEqual([
      ["a5", "whitelisted"],
      ["a6", "false"],
    ]);
  });

  it("matches a TASK_STALLED only when its partition list includes the stalled partition", () => {
    const want = expectation({ type: "TASK_STALLED", severity: "critical", contains: { partitions: "soak-stall/0" } });
    const stall = (partitions: string, alertId: string) =>
      occurrence({ alertId, type: "TASK_STALLED", severity: "critical", topic: null, partition: null, group: null, evidence: { partitions } });
    const result = matchAlerts([stall("soak-tx/0,soak-tx/1", "a3"), stall("soak-grow/1,soak-stall/0", "a4")], [want], [], neverFiring);
    expect(result.occurrences.map((o) => [o.alertId, o.verdict])).toEqual([
      ["a3", "false"],
      ["a4", "expected"],
    ]);
    expect(result.occurrences[0]?.note).toBe("x1: evidence partitions=soak-tx/0,soak-tx/1 does not include soak-stall/0");
    expect(want.matched).toEqual(["a4"]);
  });
  it("judges a refired flow-level alert by the partitions it named when it went off (seed 2028)", () => {
    const alert: AlertRecord = {
      id: "a5",
      key: "TASK_STALLED|east->west",
      type: "TASK_STALLED",
      severity: "critical",
      state: "firing",
      acknowledged: null,
      flow: "east->west",
      cluster: "east",
      topic: "soak-tx",
      partition: 1,
      group: null,
      summary: "MM2 (east->west) is RUNNING but has not copied anything from soak-tx/1 for ~37 s while 28 records wait",
      evidence: { partitions: "soak-tx/1" },
      firstSeen: 10_000,
      lastSeen: 95_000,
      resolvedAt: null,
    };
    const entry = (at: number, kind: string, data: unknown) => ({ id: at, at, kind, flow: "east->west", cluster: "east", message: "", data });
    const occurrences = listOccurrences(
      [alert],
      [
        entry(10_000, "alert-fired", { id: "a5", topic: "soak-stall", partition: 0, evidence: { partitions: "soak-stall/0" } }),
        entry(60_000, "alert-resolved", { id: "a5" }),
        entry(90_000, "alert-refired", { id: "a5", topic: "soak-tx", partition: 1, evidence: { partitions: "soak-tx/1" } }),
      ],
    );
    expect(occurrences.map((o) => [o.at, o.topic, o.partition, o.evidenceThen?.partitions])).toEqual([
      [10_000, "soak-stall", 0, "soak-stall/0"],
      [90_000, "soak-tx", 1, "soak-tx/1"],
    ]);
    const want = expectation({ type: "TASK_STALLED", severity: "critical", from: 0, contains: { partitions: "soak-stall/0" } });
    const result = matchAlerts(occurrences, [want], [], neverFiring);
    expect(result.occurrences.map((o) => o.verdict)).toEqual(["expected", "false"]);
  });
});
