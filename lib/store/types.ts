import type { CheckpointPoint, Flow, OffsetSyncPoint } from "@/lib/collector/types";

/** One sample of a flow partition's offsets (raw: per cycle; rolled up: last of each minute). */
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
export interface TranslationSample {
  group: string;
  topic: string;
  partition: number;
  committed: bigint;
  translated: bigint | null;
  checkpointDownstream: bigint | null;
  idealLow: bigint | null;
  idealHigh: bigint | null;
  /** ideal − MM2's translation (negative = records skipped). */
  reread: bigint | null;
  /** ideal − what a failover with MM2's offsets gives now (latest checkpoint, else translation). */
  failoverReread: bigint | null;
  /** Source log end − committed. */
  groupLag: bigint | null;
}

/** A stored TranslationSample with its time (raw: per cycle; rolled up: last of each minute). */
export interface TranslationSeriesPoint extends TranslationSample {
  at: number;
}

/**
 * Everything Gapwatch persists. Asynchronous so that SQLite (embedded, one machine) and PostgreSQL
 * (shared by several processes, ARCHITECTURE.md scale-out) implement the same contract. One call's
 * writes are one transaction; callers await a cycle's writes before the next cycle writes.
 */
export interface Store {
  recordFlowSamples(flows: readonly Flow[], at: number): Promise<void>;
  readPartitionHistory(flow: string, topic: string, partition: number, from: number, to: number): Promise<PartitionSample[]>;
  readTopicLagSeries(flow: string, from: number, to: number): Promise<TopicLagPoint[]>;
  appendOffsetSyncs(flow: string, topic: string, partition: number, syncs: readonly OffsetSyncPoint[], at: number): Promise<void>;
  loadOffsetSyncHistory(): Promise<Map<string, OffsetSyncPoint[]>>;
  appendCheckpoints(flow: string, checkpoints: readonly CheckpointPoint[]): Promise<void>;
  readCheckpointHistory(flow: string, group: string, topic: string, partition: number, limit: number): Promise<CheckpointPoint[]>;
  saveAlerts<T extends StoredAlert>(alerts: readonly T[]): Promise<void>;
  loadAlerts<T extends StoredAlert>(filter?: { state?: string; type?: string; flow?: string }): Promise<T[]>;
  appendEvent(event: Omit<StoredEvent, "id">): Promise<void>;
  listEvents(from: number, to: number, limit: number): Promise<StoredEvent[]>;
  getValue(name: string): Promise<string | null>;
  setValue(name: string, value: string): Promise<void>;
  prune(now: number): Promise<void>;
  close(): Promise<void>;
  /** Writes one cycle's translation samples of a flow (raw, and rolled into that minute). */
  recordTranslationSamples(flow: string, samples: readonly TranslationSample[], at: number): Promise<void>;
  /** A group's translation samples between `from` and `to`, per partition, oldest first. */
  readTranslationSeries(flow: string, group: string, from: number, to: number): Promise<TranslationSeriesPoint[]>;
}
