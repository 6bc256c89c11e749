import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { createSqliteStore } from "@/lib/store";
import { countChunksToPack } from "@/lib/store/tiers";

/** 2025-01-15 03:00:00 UTC: a 5-minute and hour boundary. */
const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const CLOSE = T0 + 5 * MINUTE;

/** Writes every 10 s from the close of [T0, T0 + 5 min), the previous one just before it: chunks packed per write. */
function simulateClose(chunks: number): number[] {
  const counts: number[] = [];
  let pending = chunks;
  let previous = CLOSE - 10 * SECOND;
  for (let at = CLOSE; pending > 0; at += 10 * SECOND) {
    const n = countChunksToPack(Array<number>(pending).fill(T0 + 10 * SECOND), previous, at);
    counts.push(n);
    pending -= n;
    previous = at;
  }
  return counts;
}

describe("spreading the 5-minute pack close (countChunksToPack)", () => {
  it("packs 10 chunks one per write and 98 (100,000 series) 4 or 5 per write, all within 4 minutes of the close", () => {
    expect(simulateClose(10)).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const wide = simulateClose(98);
    expect(wide).toEqual([0, 5, 5, ...Array<number>(22).fill(4)]);
    expect(wide.length - 1).toBe(24);
  });

  it("packs a chunk older than the bucket that just closed at once, and the rest by the time since the close after a restart", () => {
    const oldest = [T0 - SECOND, T0 + SECOND, T0 + 2 * SECOND];
    // The write at the close itself: only the overdue chunk.
    expect(countChunksToPack(oldest, CLOSE - 10 * SECOND, CLOSE)).toBe(1);
    expect(countChunksToPack(oldest, CLOSE, CLOSE + 10 * SECOND)).toBe(2);
    // After a restart (no previous write): a minute of the 4 → ceil(10 / 4) chunks.
    expect(countChunksToPack(Array<number>(10).fill(T0 + 10 * SECOND), null, CLOSE + MINUTE)).toBe(3);
    // A late write (before the latest one) packs nothing that is not overdue; from 4 minutes on, everything.
    expect(countChunksToPack([T0 + 10 * SECOND], CLOSE + 20 * SECOND, CLOSE + 10 * SECOND)).toBe(0);
    expect(countChunksToPack([T0 + 10 * SECOND, T0 + 20 * SECOND], CLOSE + 3 * MINUTE + 50 * SECOND, CLOSE + 4 * MINUTE)).toBe(2);
    expect(countChunksToPack([], CLOSE, CLOSE + 10 * SECOND)).toBe(0);
  });
});

function makePartition(partition: number, end: bigint): FlowPartition {
  return {
    topic: "orders", partition, targetTopic: "east.orders", sourceConnector: "mm2-source", sourceTopicId: null,
    sourceLogStart: 0n, sourceLogEnd: end, sourceLeaderEpoch: 0, mm2Position: end - 10n, committedPosition: end - 10n,
    positionSource: "committed", targetLogStart: 0n, targetLogEnd: end - 10n, lag: 10n, offsetLag: 10n, lagBasis: "offsets",
    transactionMarkersSeen: false, targetDensityIssue: null, latestSync: null, oldestUnreplicatedTimestamp: null, unknown: null,
  };
}

function makeFlow(partitions: FlowPartition[]): Flow {
  return {
    id: "east->west", source: "east", target: "west", discoveredFrom: "connect",
    connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: null, heartbeat: null },
    replicationPolicy: { kind: "default", separator: "." }, topicsFilter: ".*", groupsFilter: ".*", groupsExclude: "",
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, warnings: [], excludedTopics: [],
    offsetSyncs: { cluster: "east", topic: "mm2-offset-syncs.west.internal" }, checkpointsTopic: "east.checkpoints.internal",
    partitions, checkpoints: [], heartbeat: { latestTimestamp: null, latencyMs: null },
    totals: { topics: 1, partitions: partitions.length, lag: 0n, unknownPositions: 0 }, errors: [],
  };
}

describe("the SQLite store's pack close", () => {
  it("packs 3 chunks of 2,100 moving partitions one per write after the close, each bucket's raw packs written once", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-pack-close-"));
    const file = path.join(dir, "gapwatch.db");
    const store = createSqliteStore(file);
    const db = new Database(file, { readonly: true });
    try {
      const pendingChunks = db.prepare("SELECT COUNT(DISTINCT chunk) FROM partition_staged WHERE at < ?").pluck();
      const packs = db.prepare("SELECT COUNT(*) FROM partition_packs WHERE tier = 0 AND bucket = ?").pluck();
      const seen: [number, number][] = [];
      for (let c = 0; c <= 34; c++) {
        const at = T0 + c * 10 * SECOND;
        await store.recordFlowSamples([makeFlow(Array.from({ length: 2100 }, (_, p) => makePartition(p, 1000n + BigInt(c))))], at);
        if (c >= 29) seen.push([pendingChunks.get(CLOSE) as number, packs.get(T0) as number]);
      }
      // Series ids 1–2,100: chunks 0 (1–1,023), 1 (1,024–2,047) and 2 (2,048–2,100), none packed by the write at the
      // close (T0 + 5:00), then one per write at 5:10, 5:20 and 5:30.
      expect(seen).toEqual([[3, 0], [3, 0], [2, 1023], [1, 2047], [0, 2100], [0, 2100]]);
      // Chunk 2's last series reads each cycle once: 30 packed (T0 … T0 + 4:50), 5 staged (T0 + 5:00 … 5:40).
      const history = await store.readPartitionHistory("east->west", "orders", 2099, T0, T0 + 10 * MINUTE);
      expect(history.map((h) => [h.at - T0, h.sourceLogEnd])).toEqual(Array.from({ length: 35 }, (_, c) => [c * 10 * SECOND, 1000n + BigInt(c)]));
    } finally {
      db.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
