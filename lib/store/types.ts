import type { CheckpointPoint, Flow, OffsetSyncPoint } from "@/lib/collector/types";
import type { RowSample, TranslationSampleColumns } from "@/lib/translation";

/** One sample of a flow partition's offsets (raw: a cycle it changed in; rolled up: last of a 5-minute or hour bucket). */
export interface PartitionSample {
  at: number;
  sourceLogStart: bigint | null;
  sourceLogEnd: bigint | null;
  mm2Position: bigint | null;
  targetLogEnd: bigint | null;
  lag: bigint | null;
}

/** Sum of lag per topic at one time bucket (for sparklines). */
export interface TopicLagPoint {
  topic: string;
  at: number;
  lag: number;
}

export interface StoredEvent {
  id: number;
  at: number;
  kind: string;
  flow: string | null;
  cluster: string | null;
  message: string;
  data: unknown;
}

/** A stored alert: the store keeps the whole record as JSON and indexes a few columns. */
export interface StoredAlert {
  id: string;
  key: string;
  type: string;
  severity: string;
  state: string;
  firstSeen: number;
  lastSeen: number;
}

/**
 * One group × partition of a flow's offset translation at one cycle (lib/translation): the group's
 * committed source offset, MM2's translation, the ideal target position (low = high when exact),
 * re-read counts (conservative) and the group's lag at the source. null = unknown.
 */
export type TranslationSample = RowSample;

/** A stored TranslationSample with its time (raw: per cycle; rolled up: last of each minute). */
export interface TranslationSeriesPoint extends TranslationSample {
  at: number;
}

/** One detector memory entry to write (`value` JSON) or delete (`value` null); lib/detect/memory-persistence.ts. */
export interface DetectorMemoryEntryChange {
  key: string;
  value: string | null;
}

/** Which cycle of a shard's read model is published (lib/pipeline/published-read-models.ts encodes its body). */
export interface ReadModelVersion {
  /** The collector's shard key ("all" while one collector polls everything). */
  shard: string;
  cycle: number;
  takenAt: number;
}

/**
 * A shard's published read model: its version and its encoded body, bytes the store keeps as they are (a body an older
 * collector stored as text is read back as that text's UTF-8 bytes).
 */
export interface PublishedReadModel extends ReadModelVersion {
  body: Buffer;
}

/**
 * A read model to publish: its body whole, or the pieces it is made of in order (encodeColumnarPieces), which the
 * store writes without joining them where it can (SQLite's chunks: read-models.ts). The store reads the pieces before
 * its call returns and keeps none of them.
 */
export interface ReadModelPublication extends ReadModelVersion {
  body: Buffer | readonly Buffer[];
}

/** An acknowledgement made on a web instance, for the collector that holds the alert to apply. */
export interface AcknowledgementRequest {
  alertId: string;
  by: string;
  at: number;
}

/**
 * A notification about to be sent (notification ledger, migration 6): one alert's transition made by the cycle at
 * `at` (epoch ms), for one notifier target. The four together are unique: a second claim of the same key loses.
 */
export interface NotificationClaim {
  alertId: string;
  transition: string;
  at: number;
  target: string;
}

/**
 * A notification a cycle's transition owes one target (lib/alerts/notifiers): its ledger key, when the cycle queued
 * it (epoch ms; one batch per target and cycle), and the transition as JSON (`{type, alert}`), sent from the outbox.
 */
export interface NotificationDelivery extends NotificationClaim {
  queuedAt: number;
  payload: string;
}

/**
 * Who sends an outbox row, and until when (collectors sharing the work, migration 10): a row stays with the collector
 * that queued it — through a rebalance too, while it retries a target that is down — as long as that collector renews
 * the lease; another collector takes the row only once the lease has run out (its holder died or lost the store).
 */
export interface NotificationLease {
  owner: string;
  until: number;
}

/** An outbox row (migration 8): a delivery whose ledger claim won, waiting until it is delivered or dropped. */
export interface QueuedNotification extends NotificationDelivery {
  id: number;
  /** Null for a single Gapwatch process: every pending row is its own. */
  lease: NotificationLease | null;
}

/** A session ended before it expired (sign-out, migration 8); kept until `expiresAt`, when its cookie expires anyway. */
export interface RevokedSession {
  sessionId: string;
  expiresAt: number;
}

/**
 * Everything Gapwatch persists. Asynchronous so that SQLite (embedded, one machine) and PostgreSQL
 * (shared by several processes, ARCHITECTURE.md scale-out) implement the same contract. One call's
 * writes are one transaction; callers await a cycle's writes before the next cycle writes.
 */
export interface Store {
  /** Writes the partitions (and topic lags) that changed since this store last wrote them (lib/store/tiers.ts). */
  recordFlowSamples(flows: readonly Flow[], at: number): Promise<void>;
  readPartitionHistory(flow: string, topic: string, partition: number, from: number, to: number): Promise<PartitionSample[]>;
  readTopicLagSeries(flow: string, from: number, to: number): Promise<TopicLagPoint[]>;
  appendOffsetSyncs(flow: string, topic: string, partition: number, syncs: readonly OffsetSyncPoint[], at: number): Promise<void>;
  loadOffsetSyncHistory(): Promise<Map<string, OffsetSyncPoint[]>>;
  appendCheckpoints(flow: string, checkpoints: readonly CheckpointPoint[]): Promise<void>;
  readCheckpointHistory(flow: string, group: string, topic: string, partition: number, limit: number): Promise<CheckpointPoint[]>;
  /**
   * Upserts the alerts and, in the same transaction, the outbox rows of the notifications their transitions owe
   * (notification outbox): each delivery is claimed in the notification ledger and queued only when its claim wins,
   * so a crash after this write re-sends from the outbox, and a transition claimed before is never queued again.
   * Returns the rows queued, with their ids; with `lease`, the rows are leased to its owner as they are written.
   */
  saveAlerts<T extends StoredAlert>(
    alerts: readonly T[],
    deliveries?: readonly NotificationDelivery[],
    lease?: NotificationLease,
  ): Promise<QueuedNotification[]>;
  loadAlerts<T extends StoredAlert>(filter?: { state?: string; type?: string; flow?: string }): Promise<T[]>;
  appendEvent(event: Omit<StoredEvent, "id">): Promise<void>;
  listEvents(from: number, to: number, limit: number): Promise<StoredEvent[]>;
  getValue(name: string): Promise<string | null>;
  setValue(name: string, value: string): Promise<void>;
  prune(now: number): Promise<void>;
  close(): Promise<void>;
  /** Writes the cycle's translation samples of a flow that changed since last written (tiered like partitions). */
  recordTranslationSamples(flow: string, samples: readonly TranslationSample[] | TranslationSampleColumns, at: number): Promise<void>;
  /** A group's translation samples between `from` and `to`, per partition, oldest first. */
  readTranslationSeries(flow: string, group: string, from: number, to: number): Promise<TranslationSeriesPoint[]>;
  /** Applies a cycle's detector memory changes (only the entries that changed; null deletes). */
  saveDetectorMemoryEntries(changes: readonly DetectorMemoryEntryChange[]): Promise<void>;
  /**
   * The stored detector memory entries as [key, JSON value] (start-up): every one, or with `prefix` those whose key
   * starts with it (a collector's shards: lib/alerts/alert-scope.ts).
   */
  loadDetectorMemoryEntries(prefix?: string): Promise<[string, string][]>;
  /** Replaces the shard's published read model (roles: a collector after each cycle). */
  publishReadModel(model: ReadModelPublication): Promise<void>;
  /** Each shard's published version, by shard, without bodies: cheap enough to poll every second or two. */
  listReadModelVersions(): Promise<ReadModelVersion[]>;
  readReadModel(shard: string): Promise<PublishedReadModel | null>;
  /**
   * Deletes a shard's published model if it is still this version (a dead collector's row, wholly superseded); a newer
   * publication of the shard is kept. True when it deleted it.
   */
  retireReadModel(version: ReadModelVersion): Promise<boolean>;
  /** Queues an acknowledgement (web role); one per alert, the latest wins. */
  requestAcknowledgement(request: AcknowledgementRequest): Promise<void>;
  /** Queued acknowledgements, oldest first. */
  listAcknowledgementRequests(): Promise<AcknowledgementRequest[]>;
  /** Removes the requests of these alerts once applied. */
  deleteAcknowledgementRequests(alertIds: readonly string[]): Promise<void>;
  /** Outbox rows neither delivered nor dropped, oldest first (start-up: queued again). */
  listQueuedNotifications(): Promise<QueuedNotification[]>;
  /**
   * Leases pending outbox rows to `lease.owner` until `lease.until`: those with no lease, a lease that ran out at `now`,
   * or the owner's own. Returns the ids it leased (a row another owner holds, or a finished one, is left alone).
   */
  leaseNotifications(ids: readonly number[], lease: NotificationLease, now: number): Promise<number[]>;
  /** Marks outbox rows delivered or dropped: never queued again (kept 30 days, as the ledger). */
  finishNotifications(ids: readonly number[], outcome: "delivered" | "dropped", at: number): Promise<void>;
  /** Records a signed-out session until its expiry (a restart, or another web instance, still refuses its cookie). */
  revokeSession(session: RevokedSession): Promise<void>;
  /** The revoked sessions that have not expired at `now`. */
  listRevokedSessions(now: number): Promise<RevokedSession[]>;
}
