import { describe, expect, it } from "vitest";
import { type AlertRef, type AuditSample, AuditTally } from "@/lib/audit";
import { listFocusOffsets, MismatchFindings } from "@/lib/detect/audit-mismatch";

const mismatch = (sourceOffset: bigint, targetOffset: bigint): AuditSample => ({
  outcome: "mismatched",
  flow: "east->west",
  topic: "orders",
  partition: 2,
  sourceOffset,
  targetOffsets: [targetOffset],
  bracketed: false,
  sourceTimestamp: 1_000,
  mismatch: { fields: ["value"], sourceKeyLength: 4, targetKeyLength: 4, sourceValueLength: 9, targetValueLength: 12, firstValueDifference: 3, firstKeyDifference: null },
});
const matched = (sourceOffset: bigint, targetOffset: bigint, sourceTimestamp: number): AuditSample => ({ ...mismatch(sourceOffset, targetOffset), outcome: "matched", sourceTimestamp, mismatch: null });
const alert = (overrides: Partial<AlertRef>): AlertRef => ({ type: "DATA_LOSS", state: "firing", flow: "east->west", topic: "orders", partition: 2, evidence: {}, ...overrides });

describe("MismatchFindings", () => {
  it("raises one critical AUDIT_MISMATCH per partition with the exact source and target offsets, held for an hour", () => {
    const findings = new MismatchFindings();
    const [f] = findings.update([mismatch(120n, 220n), mismatch(121n, 221n)], [], 10_000);
    expect(f).toMatchObject({
      key: "AUDIT_MISMATCH|east->west|orders|2",
      severity: "critical",
      evidence: { sourceOffset: "120", targetOffset: "220", sourceOffsets: "120,121", targetOffsets: "220,221", mismatchedCount: 2, fields: "value", firstValueDifference: 3 },
    });
    expect(f!.summary).toBe(
      "The target record at offset 220 is not MM2's copy of source offset 120 of orders[2]: value differs, values differ from byte 3 (value lengths 9/12) (2 records compared differ this cycle, source offsets 120, 121)",
    );
    expect(findings.update([], [], 10_000 + 3_600_000).map((x) => x.key)).toEqual(["AUDIT_MISMATCH|east->west|orders|2"]);
    expect(findings.update([], [], 10_001 + 3_600_000)).toEqual([]);
  });

  it("raises nothing when a firing alert on the partition explains the difference (an unclean truncation rewrote the source)", () => {
    const findings = new MismatchFindings();
    expect(findings.update([mismatch(35n, 35n)], [alert({ type: "UNCLEAN_TRUNCATION", flow: null })], 10_000)).toEqual([]);
    expect(findings.update([mismatch(35n, 35n)], [alert({ type: "TASK_FAILED" })], 20_000)).toHaveLength(1);
  });
});

describe("listFocusOffsets", () => {
  it("takes the offsets firing loss, redelivery and position alerts name, and the record right after a lost range", () => {
    const alerts = [
      alert({ evidence: { firstLostOffset: "700", lastLostOffset: "1199" } }),
      alert({ type: "MM2_REDELIVERY", partition: 0, evidence: { firstDuplicateOffset: "30", lastDuplicateOffset: "229" } }),
      alert({ state: "resolved", partition: 1, evidence: { firstLostOffset: "5" } }),
      alert({ type: "REPLICATION_LAG", partition: 3, evidence: { firstLostOffset: "5" } }),
    ];
    expect(listFocusOffsets(alerts)).toEqual(new Map([["east->west|orders|2", [700n, 1199n, 1200n]], ["east->west|orders|0", [30n, 229n]]]));
  });
});

describe("AuditTally", () => {
  it("counts outcomes per flow and topic with the time range and the records verified over the last hour", () => {
    const tally = new AuditTally();
    const cost = { windows: 1, fetchRequests: 2, bytes: 900, cpuMs: 3 };
    tally.record("east->west", [matched(1n, 1n, 5_000), matched(2n, 2n, 6_000), mismatch(3n, 3n)], 100_000, cost);
    tally.record("east->west", [{ ...matched(4n, 4n, 7_000), outcome: "duplicate", targetOffsets: [4n, 9n] }], 3_700_000, cost);
    const view = tally.view("east->west", 3_700_000)!;
    expect(view.totals).toEqual({ audited: 4, matched: 2, mismatched: 1, missing: 0, duplicates: 1, foreign: 0, bracketed: 0, oldestRecordAt: 1_000, newestRecordAt: 7_000 });
    expect(view.topics.map((t) => [t.topic, t.partitions, t.audited])).toEqual([["orders", 1, 4]]);
    expect(view.verifiedLastHour).toBe(1);
    expect(view.problems.map((p) => [p.outcome, p.sourceOffset])).toEqual([["duplicate", 4n], ["mismatched", 3n]]);
    expect(view.lastCycle).toEqual({ at: 3_700_000, audited: 1, cost });
    expect(tally.view("west->east", 0)).toBeNull();
  });
});
