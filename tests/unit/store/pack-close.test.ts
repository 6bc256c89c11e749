import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { createSqliteStore } from "@/lib/store";
import { planRollupSlices, resumeRollup, type RollupProgress } from "@/lib/store/rollup-plan";
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

const HOUR = 60 * MINUTE;
/** 2025-01-15 04:00 UTC: the hour [T0, T0 + 1 h) closes. */
const H = T0 + HOUR;

const progressAt = (rolledTo: number): RollupProgress[] => [{ rolledTo: 0, partial: null }, { rolledTo, partial: null }, { rolledTo: Date.UTC(2025, 0, 15), partial: null }];

/** Writes every 10 s from the hour's close: per write, the chunks rolled (`tier:chunk`), every raw pack written. */
function simulateHourClose(chunks: number): string[][] {
  const progress = progressAt(T0);
  const rolled: string[][] = [];
  let previous = H - 10 * SECOND;
  for (let at = H; progress[1]!.rolledTo < H; at += 10 * SECOND) {
    rolled.push(planRollupSlices(progress, chunks, () => packOf0(at), previous, at).map((s) => `${s.tier}:${s.chunk}`));
    previous = at;
  }
  return rolled;
}

const packOf0 = (at: number) => Math.floor(at / (5 * MINUTE)) * 5 * MINUTE;

describe("spreading the hourly rollup (planRollupSlices)", () => {
  it("rolls 10 chunks one per write and 98 (100,000 series) 4 or 5 per write, all within 4 minutes of the close", () => {
    expect(simulateHourClose(10)).toEqual([[], ...Array.from({ length: 10 }, (_, c) => [`1:${c}`])]);
    const wide = simulateHourClose(98);
    expect(wide.map((w) => w.length)).toEqual([0, 5, 5, ...Array<number>(22).fill(4)]);
    expect(wide.flat()).toEqual(Array.from({ length: 98 }, (_, c) => `1:${c}`));
  });

  it("rolls a chunk only once its raw packs are written, and every chunk left once the spread is over", () => {
    const progress = progressAt(T0);
    // Chunk 1 still holds a staged sample of the last bucket: chunk 0 rolls, chunk 1 and (behind it) 2 wait.
    const staged = (c: number) => (c === 1 ? H - 5 * MINUTE : H);
    expect(planRollupSlices(progress, 3, staged, H, H + 2 * MINUTE)).toEqual([{ tier: 1, from: T0, to: H, chunk: 0 }]);
    expect(progress[1]).toEqual({ rolledTo: T0, partial: { to: H, chunks: 1 } });
    expect(planRollupSlices(progress, 3, () => H, H + 2 * MINUTE, H + 4 * MINUTE).map((s) => s.chunk)).toEqual([1, 2]);
    expect(progress[1]).toEqual({ rolledTo: H, partial: null });
  });

  it("rolls at once when more than one pack behind (a restart after a pause), and the day after the hour, chunk by chunk", () => {
    const progress = progressAt(T0 - 2 * HOUR);
    expect(planRollupSlices(progress, 2, () => H, null, H + 10 * SECOND)).toEqual([
      { tier: 1, from: T0 - 2 * HOUR, to: H, chunk: 0 },
      { tier: 1, from: T0 - 2 * HOUR, to: H, chunk: 1 },
    ]);
    const day = Date.UTC(2025, 0, 16);
    const daily = [{ rolledTo: 0, partial: null }, { rolledTo: day - HOUR, partial: null }, { rolledTo: day - 24 * HOUR, partial: null }];
    const first = planRollupSlices(daily, 2, () => day, day, day + 2 * MINUTE);
    // A minute of the 4 after the close: half of each tier; the day's rollup of chunk 0 follows its last hour's.
    expect(first.map((s) => `${s.tier}:${s.chunk}`)).toEqual(["1:0", "2:0"]);
    expect(planRollupSlices(daily, 2, () => day, day + 2 * MINUTE, day + 3 * MINUTE).map((s) => `${s.tier}:${s.chunk}`)).toEqual(["1:1", "2:1"]);
    expect(daily.map((p) => p.rolledTo)).toEqual([0, day, day]);
  });

  it("after a restart goes on from the chunk after the newest pack's highest series, and rolls nothing twice", () => {
    expect(resumeRollup(1, T0, 2047)).toEqual({ rolledTo: T0, partial: { to: H, chunks: 2 } });
    expect(resumeRollup(1, null, null)).toEqual({ rolledTo: 0, partial: null });
    const progress = [{ rolledTo: 0, partial: null }, resumeRollup(1, T0, 2047), { rolledTo: Date.UTC(2025, 0, 15), partial: null }];
    expect(planRollupSlices(progress, 3, () => H, null, H + 2 * MINUTE)).toEqual([{ tier: 1, from: T0, to: H, chunk: 2 }]);
    expect(progress[1]).toEqual({ rolledTo: H, partial: null });
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

describe("the SQLite store's hourly rollup", () => {
  it("rolls 2,100 partitions' hour one chunk per write after the close, across a restart, every read the same meanwhile", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-rollup-"));
    const file = path.join(dir, "gapwatch.db");
    let store = createSqliteStore(file);
    const db = new Database(file, { readonly: true });
    try {
      const hourly = db.prepare("SELECT COUNT(*) FROM partition_packs WHERE tier = 1 AND bucket = ?").pluck();
      const written: number[] = [];
      const reads: string[] = [];
      const endOf = (c: number) => 1000n + BigInt(c);
      // Cycles 0–6 at H − 70 s … H − 10 s (the hour's last bucket), 7–12 at H … H + 50 s; a restart before cycle 10.
      for (let c = 0; c <= 12; c++) {
        const at = H - 70 * SECOND + c * 10 * SECOND;
        if (c === 10) {
          await store.close();
          store = createSqliteStore(file);
        }
        const before = hourly.get(T0) as number;
        await store.recordFlowSamples([makeFlow(Array.from({ length: 2100 }, (_, p) => makePartition(p, endOf(c))))], at);
        if (c < 7) continue;
        written.push((hourly.get(T0) as number) - before);
        const points = await Promise.all([0, 2099].map((p) => store.readPartitionHistory("east->west", "orders", p, H - 10 * MINUTE, H - SECOND)));
        reads.push(JSON.stringify(points.map((h) => h.map((x) => [x.at - H, String(x.sourceLogEnd)]))));
      }
      // Chunks 0 (series 1–1,023), 1 (1,024–2,047), 2 (2,048–2,100): none at the close, then one a write; the restart
      // (cycle 10, H + 30 s) goes on with chunk 2, the one after the highest series rolled (none rolled twice).
      expect(written).toEqual([0, 1023, 1024, 53, 0, 0]);
      expect(hourly.get(T0)).toBe(2100);
      // Every read of the hour's tail after the close, from staged samples or raw packs, whatever was rolled up by then.
      const expected = JSON.stringify(
        [0, 1].map(() => [...Array.from({ length: 7 }, (_, c) => [(c - 7) * 10 * SECOND, String(endOf(c))]), [-SECOND, String(endOf(6))]]),
      );
      expect(reads).toEqual(Array<string>(6).fill(expected));
      // Once the raw packs are pruned, the hour reads from its 5-minute points: the last bucket's newest sample.
      await store.prune(H + 66 * MINUTE);
      const late = await store.readPartitionHistory("east->west", "orders", 2099, H - 10 * MINUTE, H - SECOND);
      expect(late.map((x) => [x.at - H, x.sourceLogEnd])).toEqual([[-5 * MINUTE, endOf(6)]]);
    } finally {
      db.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
