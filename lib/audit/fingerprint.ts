import { createHash } from "node:crypto";
import type { FetchedRecord } from "@/lib/kafka";
import type { MismatchSummary, RecordFingerprint } from "./types";

/** Fingerprints of a record's key, value and headers; `ignoreHeaders` (audit.ignoreHeaders) are left out. */
export function fingerprintRecord(record: FetchedRecord, ignoreHeaders: ReadonlySet<string>): RecordFingerprint {
  return {
    offset: record.offset,
    key: hashBytes(record.key),
    value: hashBytes(record.value),
    headers: hashHeaders(record.headers.filter((h) => !ignoreHeaders.has(h.key))),
    timestamp: record.timestamp,
    logAppendTime: record.logAppendTime === true,
    keyLength: record.key?.length ?? -1,
    valueLength: record.value?.length ?? -1,
  };
}

/** The parts that differ; the timestamp only when neither side's broker set it (LogAppendTime). */
export function listDifferences(source: RecordFingerprint, target: RecordFingerprint): MismatchSummary["fields"] {
  const fields: MismatchSummary["fields"] = [];
  if (source.key !== target.key) fields.push("key");
  if (source.value !== target.value) fields.push("value");
  if (source.headers !== target.headers) fields.push("headers");
  if (!source.logAppendTime && !target.logAppendTime && source.timestamp !== target.timestamp) fields.push("timestamp");
  return fields;
}

/** The byte-level summary of two differing records, computed while both are in memory (never stored). */
export function summarizeMismatch(source: FetchedRecord, target: FetchedRecord, fields: MismatchSummary["fields"]): MismatchSummary {
  return {
    fields,
    sourceKeyLength: source.key?.length ?? -1,
    targetKeyLength: target.key?.length ?? -1,
    sourceValueLength: source.value?.length ?? -1,
    targetValueLength: target.value?.length ?? -1,
    firstValueDifference: findFirstDifference(source.value, target.value),
    firstKeyDifference: findFirstDifference(source.key, target.key),
  };
}

/** Index of the first differing byte (a null side differs at 0); null when equal. */
export function findFirstDifference(a: Buffer | null, b: Buffer | null): number | null {
  if (a === null || b === null) return a === b ? null : 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? null : length;
}

function hashBytes(bytes: Buffer | null): string {
  // A null key or value hashes apart from an empty one.
  return bytes === null ? "null" : createHash("sha256").update(bytes).digest("hex");
}

/** Headers in order (Kafka keeps their order), each key and value length-prefixed so no two lists collide. */
function hashHeaders(headers: readonly { key: string; value: Buffer | null }[]): string {
  const hash = createHash("sha256");
  for (const h of headers) {
    const key = Buffer.from(h.key, "utf8");
    hash.update(lengthPrefix(key.length)).update(key);
    hash.update(lengthPrefix(h.value === null ? -1 : h.value.length));
    if (h.value !== null) hash.update(h.value);
  }
  return hash.digest("hex");
}

function lengthPrefix(length: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(length);
  return b;
}
