import { flowPartitionKey } from "@/lib/collector/types";
import type { AlertRef, AuditSample } from "@/lib/audit";
import { type Finding, FindingType, Severity } from "./types";

/**
 * Open alerts that already explain why target content differs from the source at the same offsets: the source
 * was truncated, reset or purged, MM2's position was moved, the target was truncated, or records were re-copied.
 * A mismatch on such a partition is counted but raises no second critical alert.
 */
const explainingTypes: ReadonlySet<string> = new Set([
  FindingType.DATA_LOSS,
  FindingType.TOPIC_RESET,
  FindingType.UNCLEAN_TRUNCATION,
  FindingType.TARGET_TRUNCATED,
  FindingType.MM2_POSITION_MOVED,
  FindingType.MM2_REDELIVERY,
]);

/** Evidence fields of those alerts that name source offsets worth auditing around (the planner's focus). */
const focusFields = ["firstLostOffset", "lastLostOffset", "firstDuplicateOffset", "lastDuplicateOffset", "firstAffectedOffset", "lastAffectedOffset"];

/**
 * Only the headers differ: the usual cause. MirrorSourceTask copies header bytes, but Kafka Connect converts them
 * with the worker's `header.converter`, whose default SimpleHeaderConverter writes BYTES as Base64 text
 * (Values.convertToString); dedicated MM2 sets ByteArrayConverter itself (MirrorMakerConfig), Connect does not.
 */
const headersHint =
  ". If MM2 runs on Kafka Connect, set header.converter=org.apache.kafka.connect.converters.ByteArrayConverter on the " +
  "MirrorSourceConnector (the worker's default SimpleHeaderConverter rewrites header bytes as Base64 text), or list headers a " +
  "transform changes in audit.ignoreHeaders";

/** A mismatch alert stays this long after its last sighting: the audit comes back to a partition only now and then. */
export const mismatchHoldMs = 3_600_000;

/** Source offsets named by firing alerts of the explaining types, by `flowPartitionKey`. */
export function listFocusOffsets(alerts: readonly AlertRef[]): Map<string, bigint[]> {
  const focus = new Map<string, bigint[]>();
  for (const a of alerts) {
    if (a.state !== "firing" || !explainingTypes.has(a.type) || a.flow === null || a.topic === null || a.partition === null) continue;
    const offsets = focusFields.map((f) => a.evidence[f]).filter((v): v is string => typeof v === "string" && /^\d+$/.test(v)).map(BigInt);
    // The lost records are gone from the source: the record right after a lost range is what can be compared, and
    // its copy's target offset confirms the range missing (confirmLostRanges).
    const last = a.evidence.lastLostOffset;
    if (a.type === FindingType.DATA_LOSS && typeof last === "string" && /^\d+$/.test(last)) offsets.push(BigInt(last) + 1n);
    if (offsets.length === 0) continue;
    const key = flowPartitionKey(a.flow, a.topic, a.partition);
    focus.set(key, [...(focus.get(key) ?? []), ...offsets]);
  }
  return focus;
}

/**
 * AUDIT_MISMATCH (critical): one finding per flow partition whose target holds, at the exact offset the mapping
 * names, a record that is no copy of the source record — unless a firing alert on that partition already explains
 * it. A finding is held for `mismatchHoldMs` after its last sighting (the audit samples a partition only now and
 * then), so it neither flaps nor resolves between visits, and dropped once a firing alert explains it (detected a
 * cycle later). Keeps its memory in memory; callers pass `now`.
 */
export class MismatchFindings {
  private held = new Map<string, Finding>();

  update(samples: readonly AuditSample[], alerts: readonly AlertRef[], now: number): Finding[] {
    const explained = new Set(
      alerts.filter((a) => a.state === "firing" && explainingTypes.has(a.type) && a.topic !== null && a.partition !== null).map((a) => `${a.flow ?? "*"}|${a.topic}|${a.partition}`),
    );
    const byPartition = new Map<string, AuditSample[]>();
    for (const s of samples) {
      if (s.outcome !== "mismatched" || explained.has(`${s.flow}|${s.topic}|${s.partition}`) || explained.has(`*|${s.topic}|${s.partition}`)) continue;
      const key = flowPartitionKey(s.flow, s.topic, s.partition);
      byPartition.set(key, [...(byPartition.get(key) ?? []), s]);
    }
    for (const [key, list] of byPartition) this.held.set(key, describeMismatches(list, now));
    for (const [key, f] of this.held) {
      const later = explained.has(`${f.flow}|${f.topic}|${f.partition}`) || explained.has(`*|${f.topic}|${f.partition}`);
      if (later || now - f.observedAt > mismatchHoldMs) this.held.delete(key);
    }
    return [...this.held.values()];
  }

  /** The held findings, to store (a restart neither resolves an AUDIT_MISMATCH nor restarts its hold). */
  exportHeld(): Finding[] {
    return [...this.held.values()];
  }

  /** Restores stored held findings (at start, before the first audit). */
  importHeld(findings: readonly Finding[]): void {
    this.held = new Map(findings.map((f) => [flowPartitionKey(f.flow ?? "", f.topic ?? "", f.partition ?? -1), f]));
  }
}

function describeMismatches(list: readonly AuditSample[], now: number): Finding {
  const first = list[0]!;
  const m = first.mismatch!;
  const source = first.sourceOffset!;
  const target = first.targetOffsets[0]!;
  const more = list.length > 1 ? ` (${list.length} records compared differ this cycle, source offsets ${list.map((s) => s.sourceOffset).join(", ")})` : "";
  const where = m.firstValueDifference !== null ? `, values differ from byte ${m.firstValueDifference}` : "";
  const hint = m.fields.length === 1 && m.fields[0] === "headers" ? headersHint : "";
  return {
    key: `${FindingType.AUDIT_MISMATCH}|${flowPartitionKey(first.flow, first.topic, first.partition)}`,
    type: FindingType.AUDIT_MISMATCH,
    severity: Severity.CRITICAL,
    flow: first.flow,
    topic: first.topic,
    partition: first.partition,
    summary:
      `The target record at offset ${target} is not MM2's copy of source offset ${source} of ${first.topic}[${first.partition}]: ` +
      `${m.fields.join(", ")} ${m.fields.length === 1 ? "differs" : "differ"}${where} (value lengths ${m.sourceValueLength}/${m.targetValueLength})${more}${hint}`,
    evidence: {
      sourceOffset: source.toString(),
      targetOffset: target.toString(),
      mismatchedCount: list.length,
      sourceOffsets: list.map((s) => s.sourceOffset!.toString()).join(","),
      targetOffsets: list.map((s) => s.targetOffsets[0]!.toString()).join(","),
      fields: m.fields.join(","),
      sourceValueLength: m.sourceValueLength,
      targetValueLength: m.targetValueLength,
      firstValueDifference: m.firstValueDifference,
      sourceKeyLength: m.sourceKeyLength,
      targetKeyLength: m.targetKeyLength,
      firstKeyDifference: m.firstKeyDifference,
    },
    observedAt: now,
  };
}
