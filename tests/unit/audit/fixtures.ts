import type { AuditWindow } from "@/lib/audit";
import type { FetchedRecord } from "@/lib/kafka";

/** A record as the collector's Fetch decodes it: value `order-<offset>` unless given, key `k-<offset>`. */
export function makeRecord(offset: bigint, overrides: Partial<FetchedRecord> & { text?: string } = {}): FetchedRecord {
  const { text, ...rest } = overrides;
  return {
    offset,
    timestamp: 1_700_000_000_000 + Number(offset),
    key: Buffer.from(`k-${offset}`),
    value: Buffer.from(text ?? `order-${offset}`),
    headers: [],
    ...rest,
  };
}

/** MM2's copy of `source` at target offset `at` (same key, value, headers, timestamp). */
export function copyAt(source: FetchedRecord, at: bigint): FetchedRecord {
  return { ...source, offset: at };
}

export function makeWindow(overrides: Partial<AuditWindow> = {}): AuditWindow {
  return { flow: "east->west", topic: "orders", partition: 2, targetTopic: "east.orders", from: 10n, count: 20, until: 1000n, reason: "cursor", ...overrides };
}
