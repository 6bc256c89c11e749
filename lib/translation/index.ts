/**
 * lib/translation — offset-translation accuracy and the failover planner. Pure (no I/O, never
 * reads the clock: callers pass `now`). lib/pipeline runs it every cycle and stores its samples.
 */
export * from "./types";
export { CheckpointIndex } from "./checkpoint-index";
export { mapIdealOffset, replaySyncHistory, SyncModelCache, type ReplayOptions } from "./sync-model";
export { estimateReread, isSkipping, selectMirrorMakerOffset, sumTotals } from "./reread";
export { translateFlow, translateSnapshotFlow, type TranslateFlowInput } from "./translate-flow";
export { collectSampleColumns, type SampleColumn, type TranslationSampleColumns } from "./sample-columns";
export {
  findColumnGroupRows, listSkippingRows, readGroupRows, readOwedDownstream, ColumnGroupRows, type GroupRowReader,
  type RowSample,
} from "./translation-rows";
export {
  buildFailoverPlan,
  FailoverMode,
  failoverModes,
  formatResetCsv,
  parseResetCsv,
  type FailoverModeName,
  type FailoverPlan,
  type FailoverPlanRow,
  type PlanOffsetSource,
} from "./failover-plan";
