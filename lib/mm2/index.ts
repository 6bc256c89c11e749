/**
 * lib/mm2 — MirrorMaker 2 record formats and offset models. Pure: no I/O, never reads the clock.
 */
export { ForeignRecordError, MalformedRecordError } from "./errors";
export { decodeAll, decodeCheckpoint, decodeHeartbeat, decodeOffsetSync, type RecordDecoder } from "./record-decoders";
export {
  encodeCheckpointKey,
  encodeCheckpointValue,
  encodeHeartbeatKey,
  encodeHeartbeatValue,
  encodeOffsetSyncKey,
  encodeOffsetSyncValue,
} from "./record-encoders";
export { decodeConnectStatus, decodeMirrorSourcePosition } from "./connect-records";
export {
  applyConnectorConfigRecord,
  decodeConnectorConfig,
  readMirrorEnabled,
  type ConnectorConfigRecord,
} from "./connect-config-records";
export {
  applyConnectConfigTopicRecord,
  ConnectTargetState,
  createConnectConfigState,
  decodeConnectConfigTopicRecord,
  listTaskConfigs,
  type ConnectConfigState,
  type ConnectConfigTopicRecord,
  type ConnectTargetStateType,
} from "./connect-config-topic";
export {
  applyStatusRecord,
  createStatusTable,
  listConnectorStatuses,
  type ConnectorStatusView,
  type StatusTable,
} from "./status-records";
export {
  createOffsetSyncStore,
  OffsetSyncStore,
  resolveInitializationMustReadToEnd,
  SYNCS_PER_PARTITION,
  toOptionalLong,
  translateFromSync,
  type OffsetSyncStoreOptions,
  type Translation,
} from "./offset-sync-store";
export {
  classifySyncSteps,
  findLastAtOrBefore,
  listDownstreamTruncations,
  listRewinds,
  listUpstreamGaps,
  mapBetweenSyncs,
  mapUpstreamToDownstream,
  selectLatestEpoch,
  type DownstreamMapping,
  type MappingOptions,
  type SyncStep,
  type SyncStepKind,
  type UpstreamGap,
} from "./exact-mapping";
export {
  createDefaultReplicationPolicy,
  createIdentityReplicationPolicy,
  createReplicationPolicy,
  locateOffsetSyncsTopic,
  nameDedicatedModeTopics,
  nameTargetTopics,
  type InternalTopicRule,
  type OffsetSyncsTopicLocation,
  type ReplicationPolicy,
  type ReplicationPolicyOptions,
} from "./replication-policy";
export * from "./types";
export { compileNameFilter, type NameFilter } from "./name-filter";
export { compileGroupFilter, defaultGroupsExclude, defaultGroupsInclude, readGroupFilterSettings } from "./group-filter";
export { defaultTopicsExclude, defaultTopicsInclude, judgeTopic, readTopicFilter, type TopicFilterSpec, type TopicVerdict } from "./topic-filter";
export { defaultCheckpointTiming, readCheckpointTiming, type CheckpointTiming } from "./checkpoint-settings";
export { combineTopicRefreshMs, defaultTopicRefreshMs, readTopicRefreshMs } from "./topic-refresh";
export { defaultSourceTaskSettings, readSourceTaskSettings, type SourceTaskSettings } from "./source-settings";
