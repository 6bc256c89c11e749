/**
 * Encoders for MM2's binary internal records, the inverse of record-decoders.ts. They exist for
 * tests and for the sandbox (writing fixtures); the layouts are the same tables as the decoders',
 * mirrored from OffsetSync.java, Checkpoint.java and Heartbeat.java (recordKey/recordValue).
 */
import { encodeInt16, encodeInt32, encodeInt64, encodeString } from "./protocol-types";
import type { Checkpoint, Heartbeat, OffsetSync, TopicPartition } from "./types";

const VERSION_0 = 0;

/** Encodes an OffsetSync key: topic STRING, partition INT32. */
export function encodeOffsetSyncKey(tp: TopicPartition): Buffer {
  return Buffer.concat([encodeString(tp.topic), encodeInt32(tp.partition)]);
}

/** Encodes an OffsetSync value: upstreamOffset INT64, offset INT64. */
export function encodeOffsetSyncValue(sync: Pick<OffsetSync, "upstream" | "downstream">): Buffer {
  return Buffer.concat([encodeInt64(sync.upstream), encodeInt64(sync.downstream)]);
}

/** Encodes a Checkpoint key: group STRING, topic STRING, partition INT32. */
export function encodeCheckpointKey(checkpoint: Pick<Checkpoint, "group" | "topic" | "partition">): Buffer {
  return Buffer.concat([encodeString(checkpoint.group), encodeString(checkpoint.topic), encodeInt32(checkpoint.partition)]);
}

/** Encodes a Checkpoint value: version INT16 (0), upstreamOffset INT64, offset INT64, metadata STRING. */
export function encodeCheckpointValue(checkpoint: Pick<Checkpoint, "upstream" | "downstream" | "metadata">): Buffer {
  return Buffer.concat([
    encodeInt16(VERSION_0),
    encodeInt64(checkpoint.upstream),
    encodeInt64(checkpoint.downstream),
    encodeString(checkpoint.metadata),
  ]);
}

/** Encodes a Heartbeat key: sourceClusterAlias STRING, targetClusterAlias STRING. */
export function encodeHeartbeatKey(heartbeat: Pick<Heartbeat, "sourceClusterAlias" | "targetClusterAlias">): Buffer {
  return Buffer.concat([encodeString(heartbeat.sourceClusterAlias), encodeString(heartbeat.targetClusterAlias)]);
}

/** Encodes a Heartbeat value: version INT16 (0), timestamp INT64. */
export function encodeHeartbeatValue(heartbeat: Pick<Heartbeat, "timestampMs">): Buffer {
  return Buffer.concat([encodeInt16(VERSION_0), encodeInt64(BigInt(heartbeat.timestampMs))]);
}
