export { compareWindow, type TargetRead } from "./compare";
export { type AlertRef, listFocusOffsets, MismatchFindings } from "./findings";
export { mapSourceOffset, type AuditMapping } from "./map-offset";
export { createAuditCursors, planAudit, type AuditCursors } from "./plan";
export { AuditTally, type AuditCost, type AuditCounters, type FlowAuditView } from "./tally";
export type * from "./types";
