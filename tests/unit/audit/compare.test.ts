import { describe, expect, it } from "vitest";
import { type AuditMapping, compareWindow } from "@/lib/audit";
import type { FetchedRecord } from "@/lib/kafka";
import { copyAt, makeRecord, makeWindow } from "./fixtures";

const window = makeWindow();
const none = new Set<string>();
const exact = (target: bigint): AuditMapping => ({ kind: "exact", target, proven: true });
const read = (records: FetchedRecord[], nextOffset: bigint, logStart = 0n, logEnd = 1000n) => ({ records, nextOffset, logStart, logEnd });
const outcomes = (samples: ReturnType<typeof compareWindow>) => samples.map((s) => `${s.outcome} ${s.sourceOffset ?? "-"}→${s.targetOffsets.join("/")}${s.bracketed ? " bracketed" : ""}`);

describe("compareWindow", () => {
  const sources = [10n, 11n, 12n].map((o) => makeRecord(o));

  it("matches copies at their exact target offsets", () => {
    const samples = compareWindow(window, sources.map((r, i) => ({ record: r, mapping: exact(110n + BigInt(i)) })), read(sources.map((r, i) => copyAt(r, 110n + BigInt(i))), 113n), none);
    expect(outcomes(samples)).toEqual(["matched 10→110", "matched 11→111", "matched 12→112"]);
  });

  it("reports a mismatch with a byte-level summary and never the payload", () => {
    const targets = [copyAt(sources[0]!, 110n), makeRecord(111n, { key: sources[1]!.key, timestamp: sources[1]!.timestamp, text: "order-99x" }), copyAt(sources[2]!, 112n)];
    const samples = compareWindow(window, sources.map((r, i) => ({ record: r, mapping: exact(110n + BigInt(i)) })), read(targets, 113n), none);
    expect(outcomes(samples)).toEqual(["matched 10→110", "mismatched 11→111", "matched 12→112"]);
    expect(samples[1]!.mismatch).toEqual({
      fields: ["value"],
      sourceKeyLength: 4,
      targetKeyLength: 4,
      sourceValueLength: 8,
      targetValueLength: 9,
      firstValueDifference: 6,
      firstKeyDifference: null,
    });
    expect(JSON.stringify(samples, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toContain("order-");
  });

  it("finds a copy by content when the mapping missed a gap, and does not call the neighbour's copy a mismatch", () => {
    // The target holds 11 at 110 and 12 at 111: every exact mapping is one too high (10 is at 109, not read).
    const targets = [copyAt(sources[1]!, 110n), copyAt(sources[2]!, 111n)];
    const samples = compareWindow(window, sources.map((r, i) => ({ record: r, mapping: exact(110n + BigInt(i)) })), read(targets, 112n, 0n, 112n), none);
    expect(outcomes(samples)).toEqual(["matched 11→110 bracketed", "matched 12→111 bracketed"]);
  });

  it("reports missing when the read covered the mapped offset, and leaves unread offsets unjudged", () => {
    const targets = [copyAt(sources[0]!, 110n), copyAt(sources[2]!, 113n)];
    const mapped = [exact(110n), { kind: "bracket", low: 111n, high: 112n } as const, exact(115n)];
    const samples = compareWindow(window, sources.map((r, i) => ({ record: r, mapping: mapped[i]! })), read(targets, 114n), none);
    expect(outcomes(samples)).toEqual(["matched 10→110", "missing 11→111/112 bracketed", "matched 12→113 bracketed"]);
    const short = compareWindow(window, [{ record: sources[1]!, mapping: exact(120n) }], read([], 114n), none);
    expect(short).toEqual([]);
  });

  it("judges nothing but a match past the newest sync, where the run is assumed, not proven", () => {
    const unproven: AuditMapping = { kind: "exact", target: 111n, proven: false };
    const other = makeRecord(111n, { text: "order-999" });
    expect(compareWindow(window, [{ record: sources[1]!, mapping: unproven }], read([other], 112n), none)).toEqual([]);
    expect(compareWindow(window, [{ record: sources[1]!, mapping: unproven }], read([], 112n, 0n, 111n), none)).toEqual([]);
    expect(outcomes(compareWindow(window, [{ record: sources[1]!, mapping: unproven }], read([copyAt(sources[1]!, 111n)], 112n), none))).toEqual(["matched 11→111"]);
  });

  it("reports a record held twice as a duplicate with both target offsets", () => {
    const targets = [copyAt(sources[0]!, 110n), copyAt(sources[0]!, 111n)];
    const samples = compareWindow(window, [{ record: sources[0]!, mapping: exact(111n) }], read(targets, 112n), none);
    expect(outcomes(samples)).toEqual(["duplicate 10→110/111"]);
  });

  it("reports a target record between two copies that is no copy of a source record as foreign", () => {
    const foreign = makeRecord(111n, { text: "foreign-0", key: null });
    const targets = [copyAt(sources[0]!, 110n), foreign, copyAt(sources[1]!, 112n), copyAt(sources[2]!, 113n)];
    const mapped = [exact(110n), { kind: "bracket", low: 111n, high: 112n } as const, { kind: "bracket", low: 112n, high: 113n } as const];
    const samples = compareWindow(window, sources.map((r, i) => ({ record: r, mapping: mapped[i]! })), read(targets, 114n), none);
    expect(outcomes(samples)).toEqual(["matched 10→110", "matched 11→112 bracketed", "matched 12→113 bracketed", "foreign -→111"]);
  });

  it("compares timestamps unless the target's broker stamped them, and skips ignored headers", () => {
    const withHeader = { ...copyAt(sources[0]!, 110n), headers: [{ key: "x-transform", value: Buffer.from("1") }] };
    expect(outcomes(compareWindow(window, [{ record: sources[0]!, mapping: exact(110n) }], read([withHeader], 111n), new Set(["x-transform"])))).toEqual(["matched 10→110"]);
    const restamped = { ...copyAt(sources[0]!, 110n), timestamp: 42 };
    const judged = compareWindow(window, [{ record: sources[0]!, mapping: exact(110n) }], read([restamped], 111n), none);
    expect(judged.map((s) => [s.outcome, s.mismatch?.fields])).toEqual([["mismatched", ["timestamp"]]]);
    const logAppend = { ...restamped, logAppendTime: true as const };
    expect(outcomes(compareWindow(window, [{ record: sources[0]!, mapping: exact(110n) }], read([logAppend], 111n), none))).toEqual(["matched 10→110"]);
  });

  it("does not judge offsets below the target's log start or without a mapping", () => {
    const samples = compareWindow(window, [{ record: sources[0]!, mapping: exact(110n) }, { record: sources[1]!, mapping: { kind: "none" } }], read([], 200n, 150n), none);
    expect(samples).toEqual([]);
  });
});
