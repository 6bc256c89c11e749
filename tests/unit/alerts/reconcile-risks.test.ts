import { describe, expect, it } from "vitest";
import { reconcileRisks } from "@/lib/alerts/reconcile-risks";
import type { Finding } from "@/lib/detect/types";

const T = 1_736_910_000_000;

const flag = (group: string, partitions: number): Finding => ({
  key: `COMMIT_WITHOUT_LEADER_EPOCH|east|${group}`,
  type: "COMMIT_WITHOUT_LEADER_EPOCH",
  severity: "info",
  cluster: "east",
  group,
  summary: `Group ${group} at east commits without a leader epoch on ${partitions} partitions (1 topic)`,
  evidence: { partitions },
  observedAt: T,
});

describe("reconcileRisks", () => {
  it("keeps when a risk was first seen, takes the latest summary, and drops a risk whose finding is gone", () => {
    const first = reconcileRisks([], [flag("billing", 3), flag("audit", 1)], T);
    expect(first.map((r) => [r.key, r.firstSeen, r.lastSeen])).toEqual([
      ["COMMIT_WITHOUT_LEADER_EPOCH|east|billing", T, T],
      ["COMMIT_WITHOUT_LEADER_EPOCH|east|audit", T, T],
    ]);
    const second = reconcileRisks(first, [flag("billing", 6)], T + 10_000);
    expect(second).toEqual([
      {
        key: "COMMIT_WITHOUT_LEADER_EPOCH|east|billing",
        type: "COMMIT_WITHOUT_LEADER_EPOCH",
        severity: "info",
        flow: null,
        cluster: "east",
        topic: null,
        partition: null,
        group: "billing",
        summary: "Group billing at east commits without a leader epoch on 6 partitions (1 topic)",
        evidence: { partitions: 6 },
        firstSeen: T,
        lastSeen: T + 10_000,
      },
    ]);
  });
});
