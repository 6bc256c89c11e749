/**
 * Detector domain types: what a finding is, what the detectors remember between cycles, and the
 * optional snapshot fields some detectors use when the collector provides them.
 * Everything in `DetectorMemory` and `Finding` is JSON-safe (offsets as decimal strings) so the
 * collector can persist it and a restart neither forgets reported losses nor reports them twice.
 */
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { Thresholds } from "@/lib/config/thresholds";

/** What a finding is about. One detector file per type (or per small family of types). */
export const FindingType = {
  /** Unreplicated source records were deleted before MM2 copied them. */
  DATA_LOSS: "DATA_LOSS",
  /** A source topic was deleted and recreated (new topic ID, or its log end fell below MM2's position). */
  TOPIC_RESET: "TOPIC_RESET",
  /** MM2 resumed below what it had copied (crash, restart, rebalance) and copied records again. */
  MM2_REDELIVERY: "MM2_REDELIVERY",
  /** MM2's consumer (auto.offset.reset=latest) resumed at the log end and skipped records that still existed. */
  MM2_SKIPPED_BY_RESET: "MM2_SKIPPED_BY_RESET",
  /** MM2's committed position was changed by hand (Connect's offsets API, or offsets deleted). */
  MM2_POSITION_MOVED: "MM2_POSITION_MOVED",
  /** Offsets on the target went backwards (records removed on the target). */
  TARGET_TRUNCATED: "TARGET_TRUNCATED",
  /** A Connect connector or task is FAILED. */
  TASK_FAILED: "TASK_FAILED",
  /** An MM2 connector or task has been UNASSIGNED or RESTARTING (not paused or stopped on purpose) too long. */
  TASK_NOT_RUNNING: "TASK_NOT_RUNNING",
  /** A flow's MirrorSourceConnector is gone from its Connect cluster, which answers: nothing is replicated. */
  MM2_CONNECTOR_MISSING: "MM2_CONNECTOR_MISSING",
  /** Tasks are RUNNING but MM2's position does not move while the source grows. */
  TASK_STALLED: "TASK_STALLED",
  /** Replication is behind: records not yet copied, or heartbeat / oldest-record age. */
  REPLICATION_LAG: "REPLICATION_LAG",
  /** The oldest unreplicated record will be deleted by retention soon. */
  RETENTION_RISK: "RETENTION_RISK",
  /** Leader epoch rose and the new leader lacks records the old one had committed: acknowledged records were lost. */
  UNCLEAN_TRUNCATION: "UNCLEAN_TRUNCATION",
  /** Only a partition's leader can take over cleanly (ISR = leader, no eligible leader replicas): losing it loses the partition or records. */
  NO_CLEAN_SUCCESSOR: "NO_CLEAN_SUCCESSOR",
  /** unclean.leader.election.enable is true for some topics (risk flag). */
  UNCLEAN_ELECTION_ENABLED: "UNCLEAN_ELECTION_ENABLED",
  /** Some partitions have fewer in-sync replicas than replicas. */
  UNDER_REPLICATED: "UNDER_REPLICATED",
  /** Some partitions have no leader. */
  OFFLINE: "OFFLINE",
  /** A group commits without a leader epoch, so it cannot detect log truncation (risk flag). */
  COMMIT_WITHOUT_LEADER_EPOCH: "COMMIT_WITHOUT_LEADER_EPOCH",
  /** A group's committed offset is outside the partition's log: the group will reset. */
  OFFSET_OUT_OF_RANGE: "OFFSET_OUT_OF_RANGE",
  /** A group would re-read too many records, or skip records, if it failed over now (lib/translation). */
  TRANSLATION_ERROR: "TRANSLATION_ERROR",
  /** MM2 owes a newer checkpoint for a group/partition and has not emitted it for too long (lib/translation). */
  CHECKPOINT_STALE: "CHECKPOINT_STALE",
  /**
   * A source topic moved from one MirrorSourceConnector's filter to another's: the new one starts from no offsets
   * of its own and re-copies (auto.offset.reset=earliest) or skips (latest) records (event, warning).
   */
  TOPIC_CHANGED_CONNECTOR: "TOPIC_CHANGED_CONNECTOR",
  /** A source topic left an MM2 flow: MM2's topic filter no longer takes it (event, info). */
  TOPIC_LEFT_FLOW: "TOPIC_LEFT_FLOW",
  /** An MM2 connector setting Gapwatch cannot evaluate exactly (custom filter or policy class). */
  FLOW_CONFIG_WARNING: "FLOW_CONFIG_WARNING",
  /** MM2 (reading uncommitted) copied records of aborted transactions to the target (KAFKA-14021). */
  ABORTED_RECORDS_COPIED: "ABORTED_RECORDS_COPIED",
  /** The content audit found a target record that is not MM2's copy of the source record mapped to it (lib/audit). */
  AUDIT_MISMATCH: "AUDIT_MISMATCH",
  /** MM2's topic filter matches no source topic: the flow copies nothing but heartbeats. */
  TOPIC_FILTER_MATCHES_NOTHING: "TOPIC_FILTER_MATCHES_NOTHING",
  /** A source topic MM2's filter matches has had no remote topic on the target for longer than a threshold. */
  TOPIC_MISSING_ON_TARGET: "TOPIC_MISSING_ON_TARGET",
  /** An active target group's committed offsets moved back to MM2's translated ones (KAFKA-19794). */
  TARGET_GROUP_REWOUND: "TARGET_GROUP_REWOUND",
  /** Topics whose partitions have a single replica (risk flag). */
  REPLICATION_FACTOR_ONE: "REPLICATION_FACTOR_ONE",
  /** Replicated topics with min.insync.replicas=1: acks=all is acknowledged by the leader alone (risk flag). */
  MIN_INSYNC_REPLICAS_ONE: "MIN_INSYNC_REPLICAS_ONE",
  /** A target topic keeps records for less time or fewer bytes than its source topic (risk flag). */
  TARGET_RETENTION_SHORTER: "TARGET_RETENTION_SHORTER",
  /** A target topic's partition count or settings are weaker than its source topic's (risk flag). */
  TOPIC_DRIFT: "TOPIC_DRIFT",
} as const;
export type FindingTypeName = (typeof FindingType)[keyof typeof FindingType];

/**
 * Posture, not events: true risks that stand for as long as a setting or a client stays as it is.
 * They go to the Risks page and API, never to the alert banner, the firing list or a pager: an
 * alert asks for action now, and four permanently firing flags taught operators to ignore alerts.
 */
export const riskFindingTypes: ReadonlySet<FindingTypeName> = new Set([
  FindingType.COMMIT_WITHOUT_LEADER_EPOCH,
  FindingType.UNCLEAN_ELECTION_ENABLED,
  FindingType.REPLICATION_FACTOR_ONE,
  FindingType.MIN_INSYNC_REPLICAS_ONE,
  FindingType.TARGET_RETENTION_SHORTER,
  FindingType.TOPIC_DRIFT,
]);

/** How urgent a finding is. */
export const Severity = {
  /** Data is lost or about to be; page someone. */
  CRITICAL: "critical",
  /** Something is wrong or risky; look at it today. */
  WARNING: "warning",
  /** Worth knowing; no action needed now. */
  INFO: "info",
} as const;
export type SeverityName = (typeof Severity)[keyof typeof Severity];

/** Evidence values are JSON scalars; offsets and record counts are decimal strings. */
export type Evidence = Record<string, string | number | boolean | null>;

/** One thing a detector found in one cycle. `key` is stable across cycles for the same problem. */
export interface Finding {
  key: string;
  type: FindingTypeName;
  severity: SeverityName;
  flow?: string;
  cluster?: string;
  topic?: string;
  partition?: number;
  group?: string;
  /** One line an operator understands at 3 a.m., with the numbers. */
  summary: string;
  evidence: Evidence;
  /** When this finding was last observed (epoch ms). */
  observedAt: number;
}

/**
 * What an alert is about, as an alert record (lib/alerts) and a readiness check (readiness-rule.ts) hold it: a
 * finding's optional names, null where it names none.
 */
export interface AlertSubject {
  flow: string | null;
  cluster: string | null;
  topic: string | null;
  partition: number | null;
  group: string | null;
}

/** A loss range kept for deduplication (offsets as decimal strings). */
export interface HeldRange {
  first: string;
  last: string;
  /** True when the range comes from offset-sync evidence (exact), false for position estimates. */
  exact: boolean;
}

/**
 * An event-type finding (loss, reset, truncation) held after detection: re-emitted every cycle
 * until `eventHoldMs` after it was last seen, so its alert stays visible, and used to merge later
 * sightings of the same event into one finding with one key.
 */
export interface HeldEvent {
  /** What the event is about, e.g. `DATA_LOSS|east->west|orders|2`; the key starts with it. */
  scope: string;
  /** Events in one scope with different tags never merge (e.g. different topic IDs). */
  tag: string;
  range: HeldRange | null;
  firstSeen: number;
  lastSeen: number;
  finding: Finding;
}

/** Where MM2's position was when it last moved (for TASK_STALLED). */
export interface PositionMark {
  position: string;
  movedAt: number;
  /** Source log end when the position last moved (the stall only counts if the source grew). */
  logEndAtMove: string;
  /** Time since movedAt during which the connector copying the partition was seen not running. */
  notRunningMs: number;
  /** When the mark was last updated (the cycle the next not-running interval starts from). */
  seenAt: number;
}

/** Connect's committed position of a partition as last seen, and the highest position MM2 reached. */
export interface CommittedMark {
  committed: string;
  highest: string;
  /** Source topic ID the positions belong to (a new topic starts a new mark). */
  topicId: string | null;
  /** Flows split over several source connectors: the one whose positions these are (another starts a new mark). */
  connector?: string;
  /**
   * Connect's committed position when the topic ID changed (TOPIC_RESET): the old topic's, until MM2 commits on the
   * new one (it notices the reset on its next poll and flushes every offset.flush.interval.ms). While Connect still
   * reports exactly this value it is not the new topic's position and is not compared (it would read as a move back).
   */
  replacedCommitted?: string;
  /**
   * When the partition left every flow (its topic deleted, or out of MM2's filter): the mark is kept for a day so
   * that a topic recreated across a cycle that read it gone is judged against its old topic ID (TOPIC_RESET).
   */
  goneSince?: number;
}

/**
 * What the detectors remember between cycles. JSON-safe. Persist it as entries, writing each cycle
 * only what changed (memory-persistence.ts); an unchanged entry stays the same object from one
 * cycle to the next, which is how those changes are found cheaply.
 */
export interface DetectorMemory {
  version: 1;
  events: HeldEvent[];
  /** Last offset sync already examined, per `flowPartitionKey`. */
  syncMarkers: Record<string, { upstream: string; downstream: string }>;
  /** Per `flowPartitionKey`. */
  positions: Record<string, PositionMark>;
  /** Per `flowPartitionKey`: Connect's committed position, kept while Connect's offsets are unreadable. */
  committed: Record<string, CommittedMark>;
  /** Last cycle's level findings, re-emitted while their data is stale (unknown is not healthy). */
  lastFindings: Finding[];
}

/** Input of `runDetectors`. */
export interface DetectorInput {
  previous: Snapshot | null;
  current: Snapshot;
  history: CollectorHistory;
  memory: DetectorMemory;
  now: number;
  thresholds: Thresholds;
}

/** Output of `runDetectors`. */
export interface DetectorOutput {
  findings: Finding[];
  memory: DetectorMemory;
}
