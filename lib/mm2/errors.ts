/**
 * Errors of the MM2 record decoders. A decoder either returns a value or throws one of these —
 * never a RangeError from Buffer reads — so the collector can count and skip bad records
 * (ARCHITECTURE.md: "a malformed record is counted and skipped").
 */

/** A record that cannot be decoded; `reason` says what was wrong, e.g. "OffsetSync value must be 16 bytes, got 12". */
export class MalformedRecordError extends Error {
  readonly code: string = "GW_MALFORMED_RECORD";
  readonly reason: string;
  constructor(reason: string) {
    super(`Malformed MM2 record: ${reason}`);
    this.name = new.target.name;
    this.reason = reason;
  }
}

/**
 * A well-formed record of another kind that shares the topic: Connect's offsets topic also holds
 * MirrorCheckpointConnector, MirrorHeartbeatConnector and non-MM2 connector positions, and a
 * status topic holds `status-topic-…` records. `decodeAll` counts these as skipped, not malformed.
 */
export class ForeignRecordError extends MalformedRecordError {
  override readonly code: string = "GW_FOREIGN_RECORD";
}
