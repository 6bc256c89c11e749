/**
 * AUDIT_MISMATCH: the content audit's held findings (audit-mismatch.ts judges the sampled records after each cycle,
 * when the cycle's alerts are known, and holds a finding between its visits to a partition; lib/pipeline runs it,
 * since it reads records from both clusters). The engine lists them with every other rule's.
 */
import type { StatelessRule } from "./rule";
import { FindingType } from "./types";

export const auditMismatchRule: StatelessRule = {
  id: "audit-mismatch",
  types: [FindingType.AUDIT_MISMATCH],
  // Held for mismatchHoldMs by the audit itself, whatever this cycle could read.
  unknown: "none",
  run: (cycle) => ({ findings: [...cycle.auditFindings] }),
};
