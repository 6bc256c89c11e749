/**
 * Content audit domain types (issue 16): which source records a cycle samples, where each should be on the
 * target, and what comparing them found. Payloads never leave the comparison: only SHA-256 hashes, lengths and
 * the first differing byte index are kept. Offsets are bigint here, decimal strings in evidence and JSON.
 */

/** What comparing one sampled source record with the target found. */
export type AuditOutcome = "matched" | "mismatched" | "missing" | "duplicate" | "foreign";

/** Why a partition's window was chosen this cycle. */
export type WindowReason = "finding" | "offset-sync" | "cursor";

/** One partition's sample this cycle: `count` source records from `from` (one Fetch per leader broker per side). */
export interface AuditWindow {
  flow: string;
  topic: string;
  partition: number;
  targetTopic: string;
  from: bigint;
  count: number;
  /** MM2's position: records at or above it are not copied yet and never compared. */
  until: bigint;
  reason: WindowReason;
}

/** The windows of one flow this cycle, with the clusters they are read from. */
export interface FlowAuditPlan {
  flow: string;
  source: string;
  target: string;
  windows: AuditWindow[];
}

/** SHA-256 fingerprints of one record's parts (hex), and their lengths — never the bytes. */
export interface RecordFingerprint {
  offset: bigint;
  key: string;
  value: string;
  headers: string;
  timestamp: number;
  /** The broker set the timestamp (LogAppendTime topic): it says nothing about what MM2 copied. */
  logAppendTime: boolean;
  keyLength: number;
  valueLength: number;
}

/** A field-by-field summary of a mismatch: which parts differ, lengths, first differing value/key byte. */
export interface MismatchSummary {
  fields: ("key" | "value" | "headers" | "timestamp")[];
  sourceKeyLength: number;
  targetKeyLength: number;
  sourceValueLength: number;
  targetValueLength: number;
  /** First byte index where the values differ (the shorter length when one is a prefix), null when they are equal. */
  firstValueDifference: number | null;
  firstKeyDifference: number | null;
}

/** One compared (or foreign) record with its exact offsets. */
export interface AuditSample {
  outcome: AuditOutcome;
  flow: string;
  topic: string;
  partition: number;
  /** The source offset compared; null for a foreign target record (no source record matches it). */
  sourceOffset: bigint | null;
  /** Where the record is (or was expected) on the target; for a duplicate, every target offset holding it. */
  targetOffsets: bigint[];
  /** The mapping was only a bracket of target offsets and the record was found by content within it. */
  bracketed: boolean;
  /** Source record timestamp (for the time range covered); null for a foreign record. */
  sourceTimestamp: number | null;
  mismatch: MismatchSummary | null;
}

/**
 * What the audit needs of an alert (lib/alerts' AlertRecord has these fields): the planner's focus, the losses it
 * confirms, the alerts that explain a mismatch.
 */
export interface AlertRef {
  type: string;
  state: string;
  flow: string | null;
  topic: string | null;
  partition: number | null;
  evidence: Record<string, string | number | boolean | null>;
}
