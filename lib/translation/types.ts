/**
 * Domain types of offset-translation accuracy: for every consumer group MM2 checkpoints, what its
 * committed source offset is, what MirrorCheckpointTask translates it to, what the exact target
 * position would be, and how many records the difference makes the group re-read (or skip) after a
 * failover. Offsets are `bigint`; JSON turns them into decimal strings at the edge (lib/api/json).
 */
import type { CheckpointTiming } from "@/lib/mm2";

/** Why a committed offset has no MM2 translation (MirrorCheckpointTask emits no checkpoint for it). */
export const UntranslatableReason = {
  /** MM2 has written no offset sync for the partition yet (OffsetSyncStore: OptionalLong.empty()). */
  NO_SYNC: "no-sync",
  /** Older than the oldest sync MM2's 64-slot store still holds: translateDownstream returns −1. */
  OLDER_THAN_OLDEST_SYNC: "older-than-oldest-sync",
  /** The offset-syncs topic has not been read to its end (Gapwatch could not read it this cycle). */
  STORE_NOT_LOADED: "store-not-loaded",
  /** The group's topic-partition is not replicated by this flow. */
  NOT_REPLICATED: "not-replicated",
  /**
   * The MirrorSourceConnector sets `emit.offset-syncs.enabled=false` (KIP-1031): MM2 writes no syncs and runs no
   * checkpoint connector, so it translates nothing (old syncs left in the topic describe an earlier run).
   */
  SYNCS_DISABLED: "offset-syncs-disabled",
} as const;
export type UntranslatableReasonName = (typeof UntranslatableReason)[keyof typeof UntranslatableReason];

/** What the modelled OffsetSyncStore gives for a committed offset. */
export type ModelTranslation =
  | { kind: "translated"; downstream: bigint; syncUpstream: bigint; syncDownstream: bigint }
  | { kind: "untranslatable"; reason: UntranslatableReasonName; detail: string };

/**
 * The ideal target offset of a committed source offset: the position of the first replicated record
 * at or after it, from the full sync history (lib/mm2 mapUpstreamToDownstream). A bracket's `high`
 * is always finite here: beyond the newest sync it is bounded by one target record per source offset.
 */
export type IdealOffset =
  | { kind: "exact"; downstream: bigint; basis: "sync" | "one-to-one-run" | "pinned-by-bounds" }
  | { kind: "bracket"; low: bigint; high: bigint; reason: "upstream-gap" | "downstream-gap" | "beyond-newest-sync" }
  | { kind: "unknown"; reason: "no-sync" | "before-first-sync" | "not-replicated" | "offset-syncs-disabled" };

/** Whether resuming at a translated offset would skip records the group had not consumed. */
export type SkipRisk = "none" | "possible" | "certain";

/**
 * Records re-read when a group resumes at `from` instead of the ideal position: ideal − from.
 * For a bracket, `min` uses its low bound and `max` its high bound; `records` is the conservative
 * count we report (`max`: never under-reports re-reads). Negative values mean records would be
 * SKIPPED: `certain` when even `max` is negative, `possible` when only `min` is.
 */
export interface RereadEstimate {
  min: bigint;
  max: bigint;
  records: bigint;
  skip: SkipRisk;
}

/** The latest checkpoint MM2 emitted for one group and partition, and how old it is. */
export interface CheckpointSeen {
  upstream: bigint;
  downstream: bigint;
  at: number;
  ageMs: number;
}

/** One group × partition: committed, MM2's translation, the real checkpoint, the ideal, re-reads. */
export interface PartitionTranslation {
  /** Source (upstream) topic. */
  topic: string;
  partition: number;
  /** The renamed topic on the target (`east.orders`); null when the partition is not replicated. */
  targetTopic: string | null;
  committed: bigint;
  sourceLogEnd: bigint | null;
  /** Records the group has not consumed at the source: source log end − committed (never negative). */
  groupLag: bigint | null;
  translation: ModelTranslation;
  checkpoint: CheckpointSeen | null;
  ideal: IdealOffset;
  /** ideal − MM2's (modelled) translation; null when either is unknown. */
  reread: RereadEstimate | null;
  /** ideal − the latest real checkpoint's downstream; null without checkpoint or ideal. */
  checkpointReread: RereadEstimate | null;
  /**
   * ideal − what a failover with MM2's offsets gives now: the latest checkpoint, else the model's
   * translation (the `mm2` failover plan). null when MM2 gives nothing.
   */
  failoverReread: RereadEstimate | null;
}

/** Sums over a group's (or a flow's) partitions. */
export interface TranslationTotals {
  partitions: number;
  translated: number;
  untranslatable: number;
  /** Σ positive `reread.records`: records MM2's current translation makes the group re-read. */
  rereadRecords: bigint;
  /** Σ positive `failoverReread.records`: records replayed if we fail over now (the `mm2` plan). */
  failoverReplayRecords: bigint;
  /** Partitions where MM2's translation or latest checkpoint would skip records (certain or possible). */
  skippingPartitions: number;
  /** Σ groupLag over partitions where it is known. */
  groupLag: bigint;
  /** Age of the oldest "latest checkpoint" among the partitions; null when none has one. */
  oldestCheckpointAgeMs: number | null;
}

/** One consumer group of the flow's source cluster that MM2 checkpoints. */
export interface GroupTranslation {
  group: string;
  /** "classic" or "consumer" (KIP-848): the types MM2 checkpoints. */
  groupType: string;
  state: string;
  members: number;
  /**
   * Why this cycle's committed offsets of the group are unknown (its OffsetFetch failed, or the source
   * cluster did not answer), with the age of the last good read the rows use; null when current.
   * Nothing is judged on an unknown group: its findings neither fire nor resolve.
   */
  unknown: string | null;
  partitions: PartitionTranslation[];
  totals: TranslationTotals;
}

/** One partition of a group MM2 does not checkpoint: where the group stands at the source. */
export interface UncheckpointedPartition {
  topic: string;
  partition: number;
  /** The renamed topic on the target; null when the partition is not replicated by the flow. */
  targetTopic: string | null;
  /** `committed`: the group's committed offset (streams group); `share-start`: a share group's start offset (SPSO). */
  kind: "committed" | "share-start";
  offset: bigint;
  sourceLogEnd: bigint | null;
  /** Committed: source log end − offset (never negative); share-start: the lag Kafka reports, if any. */
  lag: bigint | null;
}

/**
 * A group on the flow's topics of a type MM2 does not checkpoint (streams, share): listed with where it
 * stands at the source, never translated, never judged by CHECKPOINT_STALE or TRANSLATION_ERROR.
 */
export interface UncheckpointedGroup {
  group: string;
  groupType: string;
  state: string;
  members: number;
  /** As GroupTranslation.unknown: why this cycle's offsets are not current, or null. */
  unknown: string | null;
  /** What MM2 does with the group, and so what its consumers do after a failover. */
  note: string;
  partitions: UncheckpointedPartition[];
}

/** Every checkpointed group of one flow. */
export interface FlowTranslation {
  flow: string;
  source: string;
  target: string;
  /** When the data was read (snapshot time). */
  at: number;
  /** False when the offset-syncs topic could not be read: every translation is `store-not-loaded`. */
  syncsLoaded: boolean;
  /** The checkpoint connector's emit and group-refresh intervals (CHECKPOINT_STALE's thresholds). */
  checkpointTiming: CheckpointTiming;
  groups: GroupTranslation[];
  /** Groups on the source with committed offsets that MM2's groups filter leaves out. */
  excludedGroups: string[];
  /** Groups on the flow's topics of a type MM2 does not checkpoint (streams, share). */
  uncheckpointedGroups: UncheckpointedGroup[];
  totals: TranslationTotals & { groups: number };
}
