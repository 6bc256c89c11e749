/**
 * Domain types of MirrorMaker 2's internal records, shared by the decoders, the offset-sync store
 * model and the exact mapping. Offsets are int64 on the wire and `bigint` here (ARCHITECTURE.md,
 * "Offsets are int64"); conversion to decimal strings happens at the edges, never in lib/mm2.
 */

/** A topic-partition as Kafka names it. */
export interface TopicPartition {
  topic: string;
  partition: number;
}

/**
 * One record of `mm2-offset-syncs.<alias>.internal` (connect/mirror/.../OffsetSync.java):
 * record `upstream` of the **source** topic-partition was written at `downstream` on the target.
 */
export interface OffsetSync extends TopicPartition {
  upstream: bigint;
  downstream: bigint;
}

/** An upstream/downstream offset pair without its partition, as kept per partition. */
export interface SyncPoint {
  upstream: bigint;
  downstream: bigint;
}

/**
 * One record of `<source>.checkpoints.internal` (connect/mirror-client/.../Checkpoint.java).
 * `topic` is the renamed **target** topic (e.g. `east.orders`); `upstream` is the group's committed
 * offset on the source and `downstream` its translation on the target.
 */
export interface Checkpoint extends TopicPartition {
  group: string;
  upstream: bigint;
  downstream: bigint;
  metadata: string;
}

/** One record of `heartbeats` / `<source>.heartbeats` (connect/mirror-client/.../Heartbeat.java). */
export interface Heartbeat {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  /** Milliseconds since the epoch, as written by MirrorHeartbeatTask. */
  timestampMs: number;
}

/**
 * A MirrorSourceConnector position from the Kafka Connect offsets topic. `offset` is the upstream
 * offset of the last replicated record (MM2 resumes at offset + 1); null for a tombstone.
 */
export interface MirrorSourcePosition extends TopicPartition {
  connector: string;
  cluster: string;
  offset: bigint | null;
}

/**
 * Connect worker states as written to a status topic (connect/runtime/.../AbstractStatus.java).
 * DESTROYED exists in the enum; workers normally write a tombstone instead.
 */
export const ConnectStatusState = {
  UNASSIGNED: "UNASSIGNED",
  RUNNING: "RUNNING",
  PAUSED: "PAUSED",
  FAILED: "FAILED",
  DESTROYED: "DESTROYED",
  RESTARTING: "RESTARTING",
  STOPPED: "STOPPED",
} as const;
export type ConnectStatusStateType = (typeof ConnectStatusState)[keyof typeof ConnectStatusState];

/** A record of a Connect status topic (dedicated MM2: `mm2-status.<source>.internal`). */
export type ConnectStatusRecord =
  | ({ kind: "connector"; connector: string } & ConnectStatusBody)
  | ({ kind: "task"; connector: string; taskId: number } & ConnectStatusBody);

/** The value part of a status record; every field is null for a tombstone. */
export interface ConnectStatusBody {
  state: ConnectStatusStateType | null;
  trace: string | null;
  workerId: string | null;
  generation: number | null;
}

/** What `decodeAll` returns: decoded records in input order, and how many were bad or foreign. */
export interface DecodeAllResult<T> {
  decoded: T[];
  /** Records that could not be decoded (truncated, trailing bytes, bad version, bad JSON…). */
  malformed: number;
  /** Well-formed records of another kind sharing the topic (e.g. other connectors' offsets). */
  skipped: number;
  /** The reason of the last malformed record, or null. */
  lastError: string | null;
  /** Input positions of the malformed records, ascending (the collector logs their offsets). */
  malformedAt: number[];
}

/** A raw record as the collector hands it over (key and value bytes, either may be null). */
export interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
}
