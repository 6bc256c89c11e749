/**
 * The Snapshot: one immutable, typed picture of every cluster, Connect cluster and MM2 flow per
 * poll cycle. Detectors, the store, the API and the pages read only this (plus the bounded
 * histories in `CollectorHistory`). Offsets are `bigint`; times are epoch milliseconds.
 */
import type { Connector } from "@/lib/connect/types";
import type { CheckpointTiming, SourceTaskSettings } from "@/lib/mm2";
import { internFlowPartitionKey } from "./partition-keys";
import type { SyncHistorySource } from "./sync-history";

export interface BrokerInfo {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionState {
  topic: string;
  partition: number;
  /** Leader broker id; null when the partition has no leader (offline). */
  leader: number | null;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  /** Earliest offset (log start); null when ListOffsets failed for this partition. */
  logStart: bigint | null;
  /** Latest offset (log end / high watermark); null when ListOffsets failed. */
  logEnd: bigint | null;
  /** Why this partition's data is missing, if it is. */
  error: string | null;
  /**
   * Read only in a cycle whose leader epoch is above the epoch of the partition's last known high
   * watermark (collector leader marks, however many cycles or restarts ago): that mark, and the
   * current leader's end offset of its epoch (OffsetForLeaderEpoch), i.e. where its log diverges
   * from the log the previous leader wrote. Absent when the epoch did not rise or no mark is known.
   */
  previousEpochEnd?: PreviousEpochEnd;
  /**
   * Read only while the ISR is the leader alone and other replicas exist: the replicas the
   * controller may still elect cleanly (KIP-966 Eligible Leader Replicas), [] when none or the
   * brokers predate KIP-966, null when DescribeTopicPartitions failed. Absent otherwise.
   */
  eligibleLeaderReplicas?: number[] | null;
}

/** The current leader's end offset of the epoch of the partition's last known high watermark. */
export interface PreviousEpochEnd {
  /** The epoch asked about: the last known one. */
  epoch: number;
  /** Where the current leader's log stops holding records of `epoch` (or of an older epoch it fell back to); null when the read failed. */
  endOffset: bigint | null;
  /** The last known high watermark, read in `epoch`. */
  knownLogEnd: bigint;
  /** When it was read. */
  knownAt: number;
}

export interface TopicConfigs {
  /** null = infinite (-1). */
  retentionMs: bigint | null;
  /** null = infinite (-1). */
  retentionBytes: bigint | null;
  cleanupPolicy: string;
  uncleanLeaderElection: boolean;
  /** The topic's effective min.insync.replicas (its override, else the broker's); null when not a number. */
  minInsyncReplicas: number | null;
  /** max.message.bytes (a target's smaller limit makes MM2's producer fail on large records); null when not read. */
  maxMessageBytes?: number | null;
}

export interface TopicState {
  name: string;
  /** Hyphenated hex as the Metadata response gives it; null when the broker did not send one. */
  topicId: string | null;
  internal: boolean;
  partitions: PartitionState[];
  /** Refreshed less often than offsets; null until first read. */
  configs: TopicConfigs | null;
}

export interface GroupOffset {
  topic: string;
  partition: number;
  offset: bigint;
  /** −1 when the commit carried no leader epoch (kafkajs never sends one). */
  committedLeaderEpoch: number;
}

/** Where a share group (KIP-932) stands on one partition: it commits no offset, Kafka keeps a start offset. */
export interface ShareGroupOffset {
  topic: string;
  partition: number;
  /** The share-partition start offset (SPSO): every record below it is delivered or archived. */
  startOffset: bigint;
  leaderEpoch: number;
  /** The lag Kafka reports (DescribeShareGroupOffsets v1+); null when it does not. */
  lag: bigint | null;
}

export interface ConsumerGroupState {
  groupId: string;
  state: string;
  protocolType: string;
  /**
   * "classic" or "consumer" (KIP-848 protocol), which MM2 checkpoints; "streams" (KIP-1071) or "share"
   * (KIP-932), which MM2 4.3 does not (lib/translation/group-types.ts).
   */
  groupType: string;
  members: number;
  /** The last offsets read well: this cycle's, or an earlier cycle's when `error` is set. Empty for a share group. */
  offsets: GroupOffset[];
  /** Share groups only: their start offsets, read like `offsets` (kept from an earlier cycle when `error` is set). */
  shareOffsets?: ShareGroupOffset[];
  /** Why this cycle's offsets could not be read (the group is unknown: nothing is judged on it). */
  error: string | null;
  /** When `offsets` were read; null when they never were. */
  dataAt: number | null;
}

export interface ClusterSnapshot {
  alias: string;
  bootstrap: string[];
  reachable: boolean;
  /** What failed this cycle (cluster-wide), or null. */
  error: string | null;
  /** When the data below was read; older than the cycle when the cluster is unreachable (stale). */
  dataAt: number | null;
  /** Data is from an earlier cycle because this one failed. */
  stale: boolean;
  brokers: BrokerInfo[];
  controllerId: number | null;
  topics: TopicState[];
  groups: ConsumerGroupState[];
  /** Broker-level unclean.leader.election.enable (default for topics without an override). */
  uncleanLeaderElectionDefault: boolean | null;
  /** Reads the broker refused this cycle for lack of an ACL, per resource; absent when none (lib/acls blind spots). */
  denied?: DeniedRead[];
}

/** A read a broker refused for lack of an ACL (a `*_AUTHORIZATION_FAILED` answer), for one resource. */
export interface DeniedRead {
  /** The refused request, e.g. `DescribeConfigs`, `ListOffsets`, `OffsetFetch`. */
  api: string;
  resourceType: "cluster" | "topic" | "group";
  /** The topic or group; `kafka-cluster` for the cluster. */
  resource: string;
  /** Kafka's error name, e.g. `TOPIC_AUTHORIZATION_FAILED`. */
  error: string;
}

export interface OffsetSyncPoint {
  upstream: bigint;
  downstream: bigint;
}

export interface CheckpointPoint {
  group: string;
  /** Upstream (source) topic and partition. */
  topic: string;
  partition: number;
  upstream: bigint;
  downstream: bigint;
  /** When Gapwatch read it (the record timestamp when available). */
  at: number;
}

/** Why a flow partition's data is unknown this cycle, and when it was last known. */
export interface UnknownData {
  /** The reads that failed, e.g. `west ListOffsets: NOT_LEADER_OR_FOLLOWER`. */
  reason: string;
  /** When this partition's data was last read completely (epoch ms); null when it never was. */
  dataAt: number | null;
}

/** A partition's copying MirrorSourceConnector changed (FlowPartition.copierChange). */
export interface CopierChange {
  from: string;
  /** The position (next offset) the connector before had reached; null when it held none. */
  fromPosition: bigint | null;
  /** The source log start and end when the change was seen. */
  logStartAtChange: bigint | null;
  logEndAtChange: bigint | null;
  at: number;
}

export interface FlowPartition {
  topic: string;
  partition: number;
  targetTopic: string;
  /**
   * The MirrorSourceConnector that copies this partition (null: dedicated-mode MM2): of those whose filter takes
   * the topic, the one whose Connect offsets move (flow-readings.ts creditCopiers), else the first by name.
   */
  sourceConnector: string | null;
  /**
   * The partition's copying connector changed (its topic moved from one connector's filter to another's): the one
   * before, the position it had reached, when. Kept for `copierChangeHoldMs` after the change.
   */
  copierChange?: CopierChange;
  sourceTopicId: string | null;
  sourceLogStart: bigint | null;
  sourceLogEnd: bigint | null;
  sourceLeaderEpoch: number | null;
  /**
   * Offset of the next record MM2 will copy (last replicated upstream offset + 1), best known:
   * the larger of Connect's committed position and the one the newest offset sync proves (see
   * flow-builder.ts `derivePosition`); never above the source log end.
   */
  mm2Position: bigint | null;
  /** MM2's position as committed to Connect's offsets (can trail the real one by one flush). */
  committedPosition: bigint | null;
  /** Which reading gave `mm2Position`. */
  positionSource: "committed" | "offset-sync" | null;
  targetLogStart: bigint | null;
  targetLogEnd: bigint | null;
  /**
   * Data records at the source not yet replicated. Transaction markers take offsets but are never
   * copied, so when the per-cycle tail read reached the log end this counts the data records it
   * saw (`lagBasis` "records"); otherwise it is `offsetLag` (`lagBasis` "offsets", an upper bound).
   */
  lag: bigint | null;
  /** Offsets not yet replicated that still exist: sourceLogEnd − max(mm2Position, sourceLogStart), never negative. */
  offsetLag: bigint | null;
  /** What `lag` counts: data records read from the log, or offsets (markers included). */
  lagBasis: "records" | "offsets";
  /** A transaction marker (control batch) was seen in this partition since Gapwatch started. */
  transactionMarkersSeen: boolean;
  /**
   * Why the target partition is known not to be dense — MM2 is not its only, non-transactional
   * writer (transaction markers: MM2 in exactly-once mode or another transactional producer; a
   * last record that is not MM2's copy: another producer) — or null when nothing says so. Where
   * set, `mm2Position` is Connect's committed position, never one derived from the target's log end.
   */
  targetDensityIssue: string | null;
  latestSync: OffsetSyncPoint | null;
  /**
   * Timestamp (epoch ms) of the source record at `mm2Position` — the oldest one not replicated —
   * read with one group-less Fetch per leader broker per cycle; null when lag is 0 or unknown.
   */
  oldestUnreplicatedTimestamp: number | null;
  /**
   * Set when a read this partition depends on failed this cycle (source or target ListOffsets,
   * MM2's positions, the offset syncs, or a whole cluster): detectors neither fire nor resolve on
   * it (partition-unknown.ts).
   */
  unknown: UnknownData | null;
}

export interface FlowConnectors {
  connectCluster: string | null;
  /** The first of `sources` (by name), or null. */
  source: string | null;
  /** Every MirrorSourceConnector of this alias pair (operators split big flows by topic regex). */
  sources: string[];
  checkpoint: string | null;
  heartbeat: string | null;
  /** The Connect cluster of each source connector, by name, when the flow's connectors are on several. */
  sourceClusters?: Record<string, string>;
}

export interface Flow {
  /** `<source>-><target>` */
  id: string;
  source: string;
  target: string;
  /** How the flow was found. */
  discoveredFrom: "connect" | "dedicated-topics";
  connectors: FlowConnectors;
  replicationPolicy: { kind: "default" | "identity"; separator: string };
  topicsFilter: string;
  groupsFilter: string;
  /** The checkpoint connector's `groups.exclude` (or MM2's default). */
  groupsExclude: string;
  /** The checkpoint connector's emit and group-refresh intervals (MM2's defaults without one). */
  checkpointTiming: CheckpointTiming;
  /** What in MM2's connector configs Gapwatch cannot evaluate exactly (FLOW_CONFIG_WARNING). */
  warnings: FlowConfigWarning[];
  /**
   * Source topics outside the flow that MM2 once copied (Connect holds its positions, or the remote
   * topic exists on the target), with why MM2's filter leaves them out.
   */
  excludedTopics: ExcludedTopic[];
  offsetSyncs: { cluster: string; topic: string };
  checkpointsTopic: string;
  partitions: FlowPartition[];
  /** Latest checkpoint per group and upstream partition. */
  checkpoints: CheckpointPoint[];
  /** Newest heartbeat timestamp seen in `<source>.heartbeats` on the target, and now − it. */
  heartbeat: { latestTimestamp: number | null; latencyMs: number | null };
  totals: { topics: number; partitions: number; lag: bigint; unknownPositions: number };
  /** What could not be read for this flow this cycle. */
  errors: string[];
  /** Dedicated-mode MM2 only: its connectors' and tasks' states from its status topic. */
  dedicatedStatus?: DedicatedModeStatus;
  /** How MM2's topic filter judged every source topic this cycle (topic coverage); absent when not judged. */
  coverage?: FlowCoverageReading;
  /** The checkpoint connector's sync.group.offsets.enabled (MM2 writes translated offsets into target groups). */
  syncGroupOffsets?: boolean;
  /**
   * The MirrorSourceConnector's `emit.offset-syncs.enabled` and consumer `auto.offset.reset` (lib/mm2
   * source-settings.ts); absent = MM2's defaults (syncs on, earliest).
   */
  sourceTaskSettings?: SourceTaskSettings;
  /** Each source connector's own settings by name (a partition's are its `sourceConnector`'s); absent = as above. */
  sourceSettingsByConnector?: Record<string, SourceTaskSettings>;
  /**
   * The longest `refresh.topics.interval.seconds` of the source connectors in ms (lib/mm2 topic-refresh.ts): MM2
   * creates new remote topics and partitions within it. Null: every connector has refresh off; absent: not read.
   */
  topicRefreshMs?: number | null;
  /**
   * A flow Gapwatch keeps although its Connect cluster, answering, no longer lists its source connectors
   * (deleted): which ones and since when (epoch ms). Absent while they are listed or Connect does not answer.
   */
  connectorMissing?: { connectors: string[]; since: number };
}

/**
 * What topic coverage needs beyond the flow's partitions: which source topics MM2's filter leaves out and
 * why, and which matched topics are missing on the target since when (kept from cycle to cycle).
 */
export interface FlowCoverageReading {
  /** Every source connector's filter is one Gapwatch evaluates (DefaultTopicFilter) and was read this cycle. */
  filterKnown: boolean;
  /** Source topics the filter takes other than heartbeats topics (which MM2 copies whatever the filter says). */
  matchedByFilter: number;
  /** Source topics not in the flow, with the rule that leaves each out (null: the filter is unknown). */
  unmatched: { topic: string; reason: string | null; internal: boolean }[];
  /** Matched topics whose remote topic is not on the target, and since when (first cycle seen missing). */
  missingOnTarget: { topic: string; targetTopic: string; since: number }[];
  /**
   * Matched topics whose remote topic exists with fewer partitions than the source: a source partition count
   * increased, which MM2 follows only at its next topic refresh (`refresh.topics.interval.seconds`). The partitions
   * without a remote partition, and since when any of the topic's partitions was first seen missing.
   */
  partitionsMissingOnTarget?: { topic: string; targetTopic: string; partitions: number[]; since: number }[];
  /** Whether the target's topic list was read this cycle (missingOnTarget is carried over when not). */
  targetKnown: boolean;
}

/**
 * What a dedicated-mode MM2 (`connect-mirror-maker`, no public REST API) says about its connectors
 * and tasks in `mm2-status.<source>.internal` on the target, read as Connect reads it
 * (lib/mm2/status-records.ts). Its herder names the connectors by class: MirrorSourceConnector,
 * MirrorCheckpointConnector, MirrorHeartbeatConnector (MirrorHerder.configureConnectors).
 */
export interface DedicatedModeStatus {
  topic: string;
  /** As of the newest complete read (every partition read to the log end the cycle saw). */
  connectors: Connector[];
  /** Why this cycle's read is not complete (topic missing, target unreachable, a fetch failed): states unknown. */
  error: string | null;
}

/** A connector setting Gapwatch cannot evaluate exactly, and what it does instead. */
export interface FlowConfigWarning {
  kind: "topic-filter" | "replication-policy" | "topic-overlap" | "connector-name";
  connector: string | null;
  /** The class or setting in question, e.g. `com.acme.RegexTopicFilter`. */
  subject: string;
  message: string;
  /** topic-overlap: the source topics both connectors take. */
  topics?: string[];
}

/** A source topic MM2's filter leaves out of the flow. */
export interface ExcludedTopic {
  topic: string;
  /** E.g. "excluded by topics.exclude". */
  reason: string;
  /** Partitions of the topic for which Connect still holds MM2's offsets. */
  heldPositions: number;
}

/** Where a Connect cluster's connectors came from this cycle: its REST API, or its own topics (connect-topics.ts). */
export type ConnectSource = "rest" | "internal-topics";

export interface ConnectClusterSnapshot {
  name: string;
  /** The REST API's URL; null when the config gives only internal topics. */
  url: string | null;
  /**
   * "internal-topics": states, configs and MM2's positions were read from Connect's topics, not through REST.
   * Absent in read models published before this field existed: those were "rest".
   */
  source?: ConnectSource;
  /** The topics read in "internal-topics" mode, null (or absent) in "rest" mode. */
  internalTopics?: { cluster: string; configs: string; offsets: string; status: string } | null;
  /** Why the REST API was not used this cycle (not configured, or what failed); null (or absent) when it was. */
  restError?: string | null;
  reachable: boolean;
  error: string | null;
  dataAt: number | null;
  connectors: Connector[];
  /**
   * Since when (epoch ms) each connector (`<connector>`) or task (`<connector>|<taskId>`) has been UNASSIGNED or
   * RESTARTING without a break, as this collector saw it (connect-poll.ts); carried while Connect does not answer.
   */
  notRunningSince?: Record<string, number>;
  /** Connect's offset.flush.interval.ms for this cluster as configured (`connect[].offsetFlushIntervalMs`). */
  offsetFlushIntervalMs?: number;
}

/** Offsets `first`–`last` (inclusive) holding `records` records of one kind. */
export interface LedgerSegment {
  kind: "data" | "aborted" | "marker" | "unread";
  first: bigint;
  last: bigint;
  /** Records (markers for "marker", offsets for "unread") in the range; fewer than its offsets where compaction removed some. */
  records: bigint;
}

/**
 * What the transaction ledger (transaction-ledger.ts) knows of one source partition on which
 * transaction markers were seen: which offsets were committed data, aborted data or markers.
 */
export interface TransactionLedgerView {
  cluster: string;
  topic: string;
  partition: number;
  /** Where the ledger started reading (the log start when the partition first needed it). */
  readFrom: bigint;
  /** Offsets below the cursor are classified; above it nothing is known yet. */
  cursor: bigint;
  /** The source log end when last read; the ledger is behind while cursor < logEnd (e.g. an open transaction). */
  logEnd: bigint;
  /** Aborted data records since `readFrom` still above the source log start ("aborted" segments). */
  aborted: LedgerSegment[];
  /** Every offset of [windowFrom, cursor) by kind, for counting what a loss removed ("unread": skipped, never read). */
  windowFrom: bigint;
  window: LedgerSegment[];
}

/** Key of a source partition's transaction ledger. */
export function ledgerKey(cluster: string, topic: string, partition: number): string {
  return `${cluster}|${topic}|${partition}`;
}

export interface Snapshot {
  cycle: number;
  takenAt: number;
  durationMs: number;
  clusters: ClusterSnapshot[];
  connect: ConnectClusterSnapshot[];
  flows: Flow[];
  /** Transaction ledgers by `ledgerKey` (source partitions where markers were seen); absent when none. */
  transactionLedgers?: Readonly<Record<string, TransactionLedgerView>>;
  /** Malformed records skipped per internal topic since start (`<cluster>/<topic>` → count). */
  malformedRecords: Record<string, number>;
}

/** Bounded histories the collector keeps between cycles (detectors and translation read them). */
export interface CollectorHistory {
  /**
   * Every offset sync read, per `<flowId>|<topic>|<partition>`, oldest first, bounded: the collector's
   * SyncHistoryStore, or points by key (a decoded read model, a recording); read it with readSyncHistories.
   */
  offsetSyncs: SyncHistorySource;
}

/** Key of one upstream partition of a flow in `CollectorHistory` maps: `<flowId>|<topic>|<partition>`, interned. */
export function flowPartitionKey(flowId: string, topic: string, partition: number): string {
  return internFlowPartitionKey(flowId, topic, partition);
}
