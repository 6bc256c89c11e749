import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CollectorHistory, OffsetSyncPoint, Snapshot } from "@/lib/collector/types";
import { listSyncHistories } from "@/lib/collector/sync-history";
import { repoRoot } from "@/lib/sandbox/paths";

/** A real cycle's snapshot and the collector's sync history, captured once from the sandbox. */
export interface SnapshotFixture {
  capturedAt: string;
  kafkaVersion: string;
  snapshot: Snapshot;
  history: { offsetSyncs: Map<string, OffsetSyncPoint[]> };
}

/** The committed capture the compute benchmark scales (scripts/bench/capture-snapshot.ts writes it). */
export const sandboxFixturePath = path.join(repoRoot, "bench", "fixtures", "sandbox-snapshot.json");

/** Writes the fixture as JSON; bigints become `{"$bigint":"123"}` so they read back exactly. */
export function writeSnapshotFixture(file: string, kafkaVersion: string, snapshot: Snapshot, history: CollectorHistory): void {
  const body = { capturedAt: new Date(snapshot.takenAt).toISOString(), kafkaVersion, snapshot, history: { offsetSyncs: [...listSyncHistories(history.offsetSyncs)] } };
  writeFileSync(file, `${JSON.stringify(body, (_key, v: unknown) => (typeof v === "bigint" ? { $bigint: v.toString() } : v), 1)}\n`);
}

/** Reads a fixture written by writeSnapshotFixture. */
export function readSnapshotFixture(file: string = sandboxFixturePath): SnapshotFixture {
  const parsed = JSON.parse(readFileSync(file, "utf8"), (_key, v: unknown) => (isBigintTag(v) ? BigInt(v.$bigint) : v)) as Omit<SnapshotFixture, "history"> & {
    history: { offsetSyncs: [string, OffsetSyncPoint[]][] };
  };
  return { ...parsed, history: { offsetSyncs: new Map(parsed.history.offsetSyncs) } };
}

function isBigintTag(v: unknown): v is { $bigint: string } {
  return typeof v === "object" && v !== null && typeof (v as { $bigint?: unknown }).$bigint === "string" && Object.keys(v).length === 1;
}
