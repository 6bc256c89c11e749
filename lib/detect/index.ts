/**
 * lib/detect — pure rules over snapshots: (previous, current, history, memory, now) → findings.
 * No I/O, never reads the clock. Each detector's rule table is the doc comment of its function.
 */
export { runDetectors } from "./engine";
export { createDetectorMemory, parseDetectorMemory } from "./memory";
export { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange, type MemoryPersister } from "./memory-persistence";
export { defaultThresholds, thresholdsSchema, type Thresholds } from "@/lib/config/thresholds";
export { LossSignal, type LossSignalName } from "./data-loss";
export { ResetSignal, type ResetSignalName } from "./topic-reset";
export { TruncationSignal, type TruncationSignalName } from "./target-truncated";
export { ConnectorRole, type ConnectorRoleName } from "./task-failed";
export { OutOfRangeSide, type OutOfRangeSideName } from "./offset-out-of-range";
export * from "./types";
