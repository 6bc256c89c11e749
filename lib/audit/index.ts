export { compareWindow, type TargetRead } from "./compare";
export { confirmLostRanges, type ConfirmedLoss, listLostRanges, type LostRangeContext } from "./lost-ranges";
export { mapSourceOffset, type AuditMapping } from "./map-offset";
export { createAuditCursors, planAudit, type AuditCursors } from "./plan";
export { auditStateKey, type AuditState, decodeAuditState, encodeAuditState } from "./stored-state";
export { AuditTally, type AuditCost, type AuditCounters, type FlowAuditView } from "./tally";
export type * from "./types";
