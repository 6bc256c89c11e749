/**
 * lib/detect — the rule engine: every rule Gapwatch has (rules.ts), one interface (rule.ts), one runner (engine.ts):
 * (this cycle's model, the previous one, each rule's memory, now, thresholds) → findings and the next memory.
 * No I/O, never reads the clock. Each detector's rule table is the doc comment of its function.
 */
export { runDetectors, runRules, type RuleEngineOutput, type RuleInput } from "./engine";
export type { Rule, RuleCycle, RuleMemory, RuleOutput, RuleSectionName, RuleSections, StatefulRule, StatelessRule, UnknownTest } from "./rule";
export { rules } from "./rules";
export { createDetectorMemory, parseDetectorMemory } from "./memory";
export { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange, type MemoryPersister } from "./memory-persistence";
export { defaultThresholds, thresholdsSchema, type Thresholds } from "@/lib/config/thresholds";
export { LossSignal, type LossSignalName } from "./data-loss";
export { ResetSignal, type ResetSignalName } from "./topic-reset";
export { TruncationSignal, type TruncationSignalName } from "./target-truncated";
export { ConnectorRole, type ConnectorRoleName } from "./task-failed";
export { OutOfRangeSide, type OutOfRangeSideName } from "./offset-out-of-range";
export * from "./types";
