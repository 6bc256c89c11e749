/**
 * Byte-exact decoders for MM2's binary internal records. Layouts (Kafka protocol types, see
 * protocol-types.ts), mirrored from apache/kafka (OffsetSync.java @06a2dac2, Checkpoint.java and
 * Heartbeat.java @0967a42a):
 *
 * - OffsetSync (connect/mirror/.../OffsetSync.java): key = topic STRING, partition INT32;
 *   value = upstreamOffset INT64, offset INT64 — exactly 16 bytes, no version header.
 * - Checkpoint (connect/mirror-client/.../Checkpoint.java): key = group STRING, topic STRING,
 *   partition INT32; value = version INT16 (0), upstreamOffset INT64, offset INT64, metadata STRING.
 * - Heartbeat (connect/mirror-client/.../Heartbeat.java): key = sourceClusterAlias STRING,
 *   targetClusterAlias STRING; value = version INT16 (0), timestamp INT64 (ms).
 *
 * Stricter than Java on purpose: Kafka's Struct reader ignores trailing bytes and only `assert`s the
 * version; here trailing bytes, an unknown version, a null key/value and a negative partition are
 * MalformedRecordError, because a monitor must notice a layout it does not understand.
 */
import { ForeignRecordError, MalformedRecordError } from "./errors";
import { ProtocolReader } from "./protocol-types";
import type { Checkpoint, DecodeAllResult, Heartbeat, OffsetSync, RawRecord } from "./types";

const OFFSET_SYNC_VALUE_BYTES = 16;
const SUPPORTED_VERSION = 0;

/** A decoder of one record: returns the value or throws MalformedRecordError. */
export type RecordDecoder<T> = (key: Buffer | null, value: Buffer | null) => T;

/** Decodes an OffsetSync record of `mm2-offset-syncs.<alias>.internal`. */
export function decodeOffsetSync(key: Buffer | null, value: Buffer | null): OffsetSync {
  const keyReader = new ProtocolReader(requireBytes(key, "OffsetSync key"), "OffsetSync key");
  const topic = keyReader.readString("topic");
  const partition = readPartition(keyReader, "OffsetSync key");
  keyReader.expectEnd();

  const valueBytes = requireBytes(value, "OffsetSync value");
  if (valueBytes.length !== OFFSET_SYNC_VALUE_BYTES) {
    throw new MalformedRecordError(`OffsetSync value must be ${OFFSET_SYNC_VALUE_BYTES} bytes, got ${valueBytes.length}`);
  }
  const valueReader = new ProtocolReader(valueBytes, "OffsetSync value");
  const upstream = valueReader.readInt64("upstreamOffset");
  const downstream = valueReader.readInt64("offset");
  return { topic, partition, upstream, downstream };
}

/** Decodes a Checkpoint record of `<source>.checkpoints.internal`. */
export function decodeCheckpoint(key: Buffer | null, value: Buffer | null): Checkpoint {
  const keyReader = new ProtocolReader(requireBytes(key, "Checkpoint key"), "Checkpoint key");
  const group = keyReader.readString("group");
  const topic = keyReader.readString("topic");
  const partition = readPartition(keyReader, "Checkpoint key");
  keyReader.expectEnd();

  const valueReader = new ProtocolReader(requireBytes(value, "Checkpoint value"), "Checkpoint value");
  readVersion(valueReader, "Checkpoint");
  const upstream = valueReader.readInt64("upstreamOffset");
  const downstream = valueReader.readInt64("offset");
  const metadata = valueReader.readString("metadata");
  valueReader.expectEnd();
  return { group, topic, partition, upstream, downstream, metadata };
}

/** Decodes a Heartbeat record of `heartbeats` or `<source>.heartbeats`. */
export function decodeHeartbeat(key: Buffer | null, value: Buffer | null): Heartbeat {
  const keyReader = new ProtocolReader(requireBytes(key, "Heartbeat key"), "Heartbeat key");
  const sourceClusterAlias = keyReader.readString("sourceClusterAlias");
  const targetClusterAlias = keyReader.readString("targetClusterAlias");
  keyReader.expectEnd();

  const valueReader = new ProtocolReader(requireBytes(value, "Heartbeat value"), "Heartbeat value");
  readVersion(valueReader, "Heartbeat");
  const timestamp = valueReader.readInt64("timestamp");
  valueReader.expectEnd();
  // Milliseconds since the epoch fit a JS number exactly; anything else is not a real heartbeat.
  if (timestamp < 0n || timestamp > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MalformedRecordError(`Heartbeat timestamp ${timestamp} is not a plausible epoch millisecond`);
  }
  return { sourceClusterAlias, targetClusterAlias, timestampMs: Number(timestamp) };
}

/**
 * Decodes many records, counting and skipping the bad ones instead of failing the batch.
 * Only MalformedRecordError is absorbed (ForeignRecordError counts as skipped); any other error
 * is a bug in a decoder and is rethrown.
 */
export function decodeAll<T>(records: Iterable<RawRecord>, decoder: RecordDecoder<T>): DecodeAllResult<T> {
  const result: DecodeAllResult<T> = { decoded: [], malformed: 0, skipped: 0, lastError: null, malformedAt: [] };
  let index = -1;
  for (const record of records) {
    index += 1;
    try {
      result.decoded.push(decoder(record.key, record.value));
    } catch (error) {
      if (!(error instanceof MalformedRecordError)) throw error;
      if (error instanceof ForeignRecordError) {
        result.skipped += 1;
      } else {
        result.malformed += 1;
        result.lastError = error.reason;
        result.malformedAt.push(index);
      }
    }
  }
  return result;
}

function requireBytes(bytes: Buffer | null, what: string): Buffer {
  if (bytes === null) throw new MalformedRecordError(`${what} is null`);
  return bytes;
}

function readPartition(reader: ProtocolReader, what: string): number {
  const partition = reader.readInt32("partition");
  if (partition < 0) throw new MalformedRecordError(`${what} partition must be >= 0, got ${partition}`);
  return partition;
}

function readVersion(reader: ProtocolReader, record: string): void {
  const version = reader.readInt16("version");
  if (version !== SUPPORTED_VERSION) {
    throw new MalformedRecordError(`${record} value version must be ${SUPPORTED_VERSION}, got ${version}`);
  }
}
