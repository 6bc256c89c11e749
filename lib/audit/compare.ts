import type { FetchedRecord } from "@/lib/kafka";
import { fingerprintRecord, listDifferences, summarizeMismatch } from "./fingerprint";
import type { AuditMapping } from "./map-offset";
import type { AuditSample, AuditWindow, RecordFingerprint } from "./types";

/** What the target Fetch of one window returned. */
export interface TargetRead {
  records: readonly FetchedRecord[];
  /** One past the last offset the read covered. */
  nextOffset: bigint;
  logStart: bigint;
  logEnd: bigint;
}

interface Sampled {
  record: FetchedRecord;
  print: RecordFingerprint;
  mapping: AuditMapping;
}

/**
 * Compares a window's sampled source records with the target records read around their mapped offsets:
 * - matched: a target record with the same key, value, headers and timestamp hashes is at the mapped offset
 *   (or, when the mapping is a bracket or was off, found by content — `bracketed`);
 * - duplicate: the same content at two or more target offsets (a re-copy after an MM2 crash is not a mismatch);
 * - mismatched: the mapping is proven by the syncs, the mapped offset holds a record that is no copy of any
 *   sampled source record, and the source record's content is nowhere in the read — a target record holding a
 *   copy of a neighbour means the mapping missed a gap, which is no evidence, so it is not judged;
 * - missing: the mapping is proven (or a bracket), the read covered the mapped offset (or the whole bracket, or
 *   the target's log end) and the content is nowhere in it;
 * - foreign: between two matched records (MM2 copies a partition in order), a target record that is no copy of
 *   any source record in between — written by someone else ("not from this source").
 * Offsets below the target's log start (target retention) or beyond what the read covered are not judged.
 */
export function compareWindow(window: AuditWindow, sampled: readonly { record: FetchedRecord; mapping: AuditMapping }[], target: TargetRead, ignoreHeaders: ReadonlySet<string>): AuditSample[] {
  const targets = target.records.map((record) => ({ record, print: fingerprintRecord(record, ignoreHeaders) }));
  const byOffset = new Map(targets.map((t) => [t.record.offset, t]));
  const sources: Sampled[] = sampled.map((s) => ({ ...s, print: fingerprintRecord(s.record, ignoreHeaders) }));
  const isCopyOfAny = (print: RecordFingerprint) => sources.some((s) => listDifferences(s.print, print).length === 0);
  const samples: AuditSample[] = [];
  const anchors: { source: bigint; target: bigint }[] = [];
  for (const s of sources) {
    if (s.mapping.kind === "none") continue;
    const found = targets.filter((t) => listDifferences(s.print, t.print).length === 0).map((t) => t.record.offset);
    const base = { flow: window.flow, topic: window.topic, partition: window.partition, sourceOffset: s.record.offset, sourceTimestamp: s.record.timestamp, mismatch: null };
    const expected = s.mapping.kind === "exact" ? s.mapping.target : s.mapping.low;
    if (expected < target.logStart) continue;
    if (found.length > 0) {
      const bracketed = s.mapping.kind !== "exact" || !found.includes(s.mapping.target);
      samples.push({ ...base, outcome: found.length > 1 ? "duplicate" : "matched", targetOffsets: found, bracketed });
      anchors.push({ source: s.record.offset, target: s.mapping.kind === "exact" && found.includes(s.mapping.target) ? s.mapping.target : found[0]! });
      continue;
    }
    if (s.mapping.kind === "exact" && !s.mapping.proven) continue;
    const last = s.mapping.kind === "exact" ? s.mapping.target : s.mapping.high;
    const covered = target.nextOffset > last || target.logEnd <= last;
    if (s.mapping.kind === "exact") {
      const there = byOffset.get(s.mapping.target);
      if (there !== undefined) {
        if (!isCopyOfAny(there.print)) {
          const summary = summarizeMismatch(s.record, there.record, listDifferences(s.print, there.print));
          samples.push({ ...base, outcome: "mismatched", targetOffsets: [s.mapping.target], bracketed: false, mismatch: summary });
        }
        continue;
      }
    }
    if (covered) samples.push({ ...base, outcome: "missing", targetOffsets: s.mapping.kind === "exact" ? [s.mapping.target] : [s.mapping.low, s.mapping.high], bracketed: s.mapping.kind !== "exact" });
  }
  const judged = new Set(samples.filter((s) => s.outcome === "mismatched").map((s) => s.targetOffsets[0]!));
  const others = targets.filter((t) => !judged.has(t.record.offset));
  return [...samples, ...findForeignRecords(window, anchors, others, isCopyOfAny)];
}

/**
 * Target records strictly between two consecutive matched records that are copies of no sampled source record
 * (a record already reported as a mismatch at its mapped offset is not reported again).
 */
function findForeignRecords(
  window: AuditWindow,
  anchors: { source: bigint; target: bigint }[],
  targets: readonly { record: FetchedRecord; print: RecordFingerprint }[],
  isCopyOfAny: (print: RecordFingerprint) => boolean,
): AuditSample[] {
  const sorted = [...anchors].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  const foreign: AuditSample[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    if (b.target <= a.target + 1n) continue;
    for (const t of targets) {
      if (t.record.offset <= a.target || t.record.offset >= b.target || isCopyOfAny(t.print)) continue;
      foreign.push({ outcome: "foreign", flow: window.flow, topic: window.topic, partition: window.partition, sourceOffset: null, targetOffsets: [t.record.offset], bracketed: false, sourceTimestamp: null, mismatch: null });
    }
  }
  return foreign;
}
