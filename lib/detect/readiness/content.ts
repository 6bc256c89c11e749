import { formatCount } from "@/lib/format";
import type { ReadinessRule } from "../readiness-rule";
import { makeOutcome } from "./outcome";

/**
 * The content audit's line: how many records' content was verified on the target over the last hour, and what did
 * not match since start. Informational ("ok"): the audit adds proof to the other checks and never stands in for one;
 * an unexplained mismatch raises AUDIT_MISMATCH (critical), which the alerts check already counts. Made only when
 * the caller has an audit (`input.audit` present, null when none ran yet).
 */
export const contentCheck: ReadinessRule = {
  id: "content",
  title: "Record content",
  appliesTo: ({ audit }) => audit !== undefined,
  check: ({ audit }) => {
    if (!audit) {
      return makeOutcome("ok", "no record content audited yet (audit disabled, or no copied record sampled yet)");
    }
    const t = audit.totals;
    const counts = [
      [t.mismatched, "mismatched"],
      [t.missing, "missing on the target"],
      [t.duplicates, "held twice"],
      [t.foreign, "target records not from this source"],
    ] as const;
    const notes = counts.filter(([n]) => n > 0).map(([n, what]) => `${formatCount(n)} ${what}`);
    const items = audit.problems.map((p) => ({
      text:
        `${p.outcome}: ${p.topic}[${p.partition}] source ${p.sourceOffset ?? "—"} → ` +
        `target ${p.targetOffsets.join(", ")}`,
      ref: { kind: "topic" as const, topic: p.topic, partition: p.partition },
    }));
    const verified = `content verified for ${formatCount(audit.verifiedLastHour)} records over the last hour`;
    return makeOutcome("ok", verified + (notes.length > 0 ? `; since start ${notes.join(", ")}` : ""), items);
  },
};
