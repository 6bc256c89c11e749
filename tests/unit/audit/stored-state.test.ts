import { describe, expect, it } from "vitest";
import { AuditTally, type AuditSample, decodeAuditState, encodeAuditState } from "@/lib/audit";
import { MismatchFindings } from "@/lib/detect/audit-mismatch";

const sample = (outcome: AuditSample["outcome"], sourceOffset: bigint | null, targetOffsets: bigint[]): AuditSample => ({
  outcome,
  flow: "east->west",
  topic: "orders",
  partition: 2,
  sourceOffset,
  targetOffsets,
  bracketed: false,
  sourceTimestamp: sourceOffset === null ? null : 1_000 + Number(sourceOffset),
  mismatch: outcome === "mismatched" ? { fields: ["value"], sourceKeyLength: 4, targetKeyLength: 4, sourceValueLength: 9, targetValueLength: 12, firstValueDifference: 3, firstKeyDifference: null } : null,
});
const cost = { windows: 2, fetchRequests: 2, bytes: 640, cpuMs: 4 };
const loss = { flow: "east->west", topic: "orders", partition: 2, firstLostOffset: 100n, lastLostOffset: 149n, targetOffset: 100n, confirmedAt: 9_000 };

describe("the stored audit state", () => {
  it("round-trips counters, coverage, problems with bigint offsets, confirmed losses and held findings through JSON", () => {
    const tally = new AuditTally();
    tally.record("east->west", [sample("matched", 10n, [10n]), sample("duplicate", 11n, [11n, 40n]), sample("foreign", null, [12345678901234567890n])], 5_000, cost);
    tally.record("east->west", [{ ...sample("matched", 3n, [3n]), partition: 0 }, sample("mismatched", 12n, [12n])], 6_000, cost);
    expect(tally.confirmLosses("east->west", [loss])).toBe(true);
    expect(tally.confirmLosses("east->west", [{ ...loss, confirmedAt: 9_500 }])).toBe(false);
    const findings = new MismatchFindings();
    const held = findings.update([sample("mismatched", 12n, [12n])], [], 6_000);

    const raw = encodeAuditState({ tallies: tally.exportState(), held: findings.exportHeld() });
    expect(raw).toContain('"12345678901234567890"');
    const decoded = decodeAuditState(raw);
    const restored = new AuditTally();
    restored.importState(decoded.tallies);
    const view = restored.view("east->west", 6_000)!;
    expect(view).toEqual(tally.view("east->west", 6_000));
    expect(view.totals).toEqual({ audited: 4, matched: 2, mismatched: 1, missing: 0, duplicates: 1, foreign: 1, bracketed: 0, oldestRecordAt: 1_003, newestRecordAt: 1_012 });
    expect(view.topics.map((t) => [t.topic, t.partitions])).toEqual([["orders", 2]]);
    expect(view.problems.map((p) => [p.outcome, p.sourceOffset, p.targetOffsets])).toEqual([
      ["mismatched", 12n, [12n]],
      ["foreign", null, [12345678901234567890n]],
      ["duplicate", 11n, [11n, 40n]],
    ]);
    expect(view.confirmedLosses).toEqual([loss]);
    expect(view.verifiedLastHour).toBe(3);

    const reheld = new MismatchFindings();
    reheld.importHeld(decoded.held);
    expect(decoded.held).toEqual(held);
    // Held as before: an hour after its last sighting, then dropped.
    expect(reheld.update([], [], 6_000 + 3_600_000).map((f) => f.evidence.sourceOffset)).toEqual(["12"]);
    expect(reheld.update([], [], 6_001 + 3_600_000)).toEqual([]);
  });

  it("refuses a state of another version", () => {
    expect(() => decodeAuditState('{"version":2,"flows":[],"held":[]}')).toThrow("not an audit state of version 1");
  });
});
