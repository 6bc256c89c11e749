import type { Finding } from "@/lib/detect/types";
import { locateFinding } from "./reconcile-alerts";
import type { RiskRecord } from "./types";

/**
 * The risks of this cycle: one per risk finding, keeping when it was first seen; a risk whose
 * finding is gone is gone (a setting changed back needs no hysteresis). Findings on data that could
 * not be read are carried by the detectors (lastFindings), so unknown data neither adds nor drops one.
 */
export function reconcileRisks(previous: readonly RiskRecord[], findings: readonly Finding[], now: number): RiskRecord[] {
  const before = new Map(previous.map((r) => [r.key, r]));
  return findings.map((f) => ({
    key: f.key,
    type: f.type,
    severity: f.severity,
    ...locateFinding(f),
    summary: f.summary,
    evidence: f.evidence,
    firstSeen: before.get(f.key)?.firstSeen ?? now,
    lastSeen: now,
  }));
}
