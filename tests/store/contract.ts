import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CheckpointPoint, Flow, FlowPartition, OffsetSyncPoint } from "@/lib/collector/types";
import { createMemoryPersister, loadDetectorMemoryEntries } from "@/lib/detect/memory-persistence";
import type { NotificationDelivery, QueuedNotification, RevokedSession, Store, StoredAlert, TranslationSample } from "@/lib/store";

/**
 * The Store contract: one suite of cases every implementation passes (SQLite in the unit project, PostgreSQL in
 * the store project). Each case gets a fresh, empty database; `open()` may be called again after `close()`
 * (a restart of Gapwatch on the same database).
 */
export interface StoreHarness {
  /** Points the harness at a new, empty database. */
  fresh(): Promise<void>;
  /** Opens a store on the current database. */
  open(): Store;
  /** Removes what `fresh` made (after every store of the case was closed). */
  cleanup(): Promise<void>;
}

/** 2025-01-15 03:00:00 UTC, on a minute boundary. */
const T0 = Date.UTC(2025, 0, 15, 3, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FLOW = "east->west";
const ABOVE_2_53 = 9007199254740993n;

function makePartition(overrides: Partial<FlowPartition> = {}): FlowPartition {
  return {
    topic: "orders",
    partition: 0,
    targetTopic: "east.orders",
    sourceConnector: "mm2-source",
    sourceTopicId: null,
    sourceLogStart: 0n,
    sourceLogEnd: 100n,
    sourceLeaderEpoch: 0,
    mm2Position: 90n,
    committedPosition: 90n,
    positionSource: "committed",
    targetLogStart: 0n,
    targetLogEnd: 90n,
    lag: 10n,
    offsetLag: 10n,
    lagBasis: "offsets",
    transactionMarkersSeen: false,
    targetDensityIssue: null,
    latestSync: null,
    oldestUnreplicatedTimestamp: null,
    unknown: null,
    ...overrides,
  };
}

function makeFlow(partitions: FlowPartition[], id = FLOW): Flow {
  const [source = "east", target = "west"] = id.split("->");
  return {
    id,
    source,
    target,
    discoveredFrom: "connect",
    connectors: { connectCluster: "connect-1", source: "mm2-source", sources: ["mm2-source"], checkpoint: null, heartbeat: null },
    replicationPolicy: { kind: "default", separator: "." },
    topicsFilter: ".*",
    groupsFilter: ".*",
    groupsExclude: "console-consumer-.*, connect-.*, __.*",
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
    warnings: [],
    excludedTopics: [],
    offsetSyncs: { cluster: source, topic: `mm2-offset-syncs.${target}.internal` },
    checkpointsTopic: `${source}.checkpoints.internal`,
    partitions,
    checkpoints: [],
    heartbeat: { latestTimestamp: null, latencyMs: null },
    totals: { topics: 1, partitions: partitions.length, lag: 0n, unknownPositions: 0 },
    errors: [],
  };
}

/** One `orders`/0 sample whose offsets all derive from `end` (lag 10). */
export function sampleAt(store: Store, at: number, end: bigint, partition = 0): Promise<void> {
  return store.recordFlowSamples([makeFlow([makePartition({ partition, sourceLogEnd: end, mm2Position: end - 10n, targetLogEnd: end - 10n, lag: 10n })])], at);
}

export function expectedSample(at: number, end: bigint) {
  return { at, sourceLogStart: 0n, sourceLogEnd: end, mm2Position: end - 10n, targetLogEnd: end - 10n, lag: 10n };
}

interface TestAlert extends StoredAlert {
  flow: string | null;
  summary: string;
}

function makeAlert(overrides: Partial<TestAlert> = {}): TestAlert {
  return {
    id: "a-1",
    key: `REPLICATION_LAG|${FLOW}|records`,
    type: "REPLICATION_LAG",
    severity: "warning",
    state: "open",
    firstSeen: T0,
    lastSeen: T0,
    flow: FLOW,
    summary: "lag is 5000 records",
    ...overrides,
  };
}


/** Registers the contract's cases against one implementation. */
export function describeStoreContract(harness: StoreHarness): void {
  const opened: Store[] = [];
  const open = (): Store => {
    const store = harness.open();
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    await harness.fresh();
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await harness.cleanup();
  });

  describe("partition samples", async () => {
    it("round-trips offsets exactly, including values above 2^53, and nulls", async () => {
      const s = open();
      await s.recordFlowSamples(
        [
          makeFlow([
            makePartition({ sourceLogStart: ABOVE_2_53 - 5n, sourceLogEnd: ABOVE_2_53, mm2Position: ABOVE_2_53 - 1n, targetLogEnd: null, lag: 1n }),
            makePartition({ partition: 1, sourceLogStart: null, sourceLogEnd: null, mm2Position: null, targetLogEnd: null, lag: null }),
          ]),
        ],
        T0,
      );
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + MINUTE)).toEqual([
        { at: T0, sourceLogStart: ABOVE_2_53 - 5n, sourceLogEnd: ABOVE_2_53, mm2Position: ABOVE_2_53 - 1n, targetLogEnd: null, lag: 1n },
      ]);
      expect(await s.readPartitionHistory(FLOW, "orders", 1, T0, T0 + MINUTE)).toEqual([
        { at: T0, sourceLogStart: null, sourceLogEnd: null, mm2Position: null, targetLogEnd: null, lag: null },
      ]);
    });

    it("returns raw samples in time order within [from, to] and only for the asked partition and flow", async () => {
      const s = open();
      await sampleAt(s, T0 + 20 * SECOND, 300n);
      await sampleAt(s, T0 + 10 * SECOND, 200n);
      await sampleAt(s, T0, 100n);
      await sampleAt(s, T0 + 10 * SECOND, 999n, 1);
      await s.recordFlowSamples([makeFlow([makePartition()], "west->east")], T0 + 10 * SECOND);
      // The value before `from` (T0's) is carried to `from`.
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 + 5 * SECOND, T0 + 20 * SECOND)).toEqual([
        expectedSample(T0 + 5 * SECOND, 100n),
        expectedSample(T0 + 10 * SECOND, 200n),
        expectedSample(T0 + 20 * SECOND, 300n),
      ]);
    });

    it("returns nothing for a partition without samples", async () => {
      expect(await open().readPartitionHistory(FLOW, "orders", 7, T0, T0 + HOUR)).toEqual([]);
    });

    it("rolls samples into one row per 5 minutes that keeps the bucket's last value", async () => {
      const s = open();
      await sampleAt(s, T0 + 10 * SECOND, 100n);
      await sampleAt(s, T0 + 50 * SECOND, 150n);
      await sampleAt(s, T0 + 4 * MINUTE, 130n);
      await sampleAt(s, T0 + 5 * MINUTE + 10 * SECOND, 200n);
      // Raw rows before T0 + 6 min go; the buckets closed by then were rolled up first.
      await s.prune(T0 + HOUR + 6 * MINUTE);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + HOUR)).toEqual([expectedSample(T0, 130n), expectedSample(T0 + 5 * MINUTE, 200n)]);
    });

    it("answers with 5-minute rows before the bucket of the oldest raw sample and raw samples from it on", async () => {
      const s = open();
      await sampleAt(s, T0, 100n);
      await sampleAt(s, T0 + 2 * MINUTE, 130n);
      await sampleAt(s, T0 + 5 * MINUTE, 160n);
      await sampleAt(s, T0 + 7 * MINUTE, 190n);
      await sampleAt(s, T0 + 10 * MINUTE, 220n);
      await s.prune(T0 + HOUR + 5 * MINUTE);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + 10 * MINUTE)).toEqual([
        expectedSample(T0, 130n),
        expectedSample(T0 + 5 * MINUTE, 160n),
        expectedSample(T0 + 7 * MINUTE, 190n),
        expectedSample(T0 + 10 * MINUTE, 220n),
      ]);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 + 7 * MINUTE, T0 + 10 * MINUTE)).toEqual([
        expectedSample(T0 + 7 * MINUTE, 190n),
        expectedSample(T0 + 10 * MINUTE, 220n),
      ]);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 + 6 * MINUTE, T0 + 10 * MINUTE)).toEqual([
        expectedSample(T0 + 6 * MINUTE, 160n),
        expectedSample(T0 + 7 * MINUTE, 190n),
        expectedSample(T0 + 10 * MINUTE, 220n),
      ]);
    });

    it("writes an idle partition once over 10 cycles yet draws it flat over any range, and writes each change of a busy one", async () => {
      const s = open();
      for (let i = 0; i < 10; i++) {
        const busy = 100n + BigInt(i);
        await s.recordFlowSamples(
          [makeFlow([makePartition(), makePartition({ partition: 1, sourceLogEnd: busy, mm2Position: busy - 10n, targetLogEnd: busy - 10n })])],
          T0 + i * 10 * SECOND,
        );
      }
      // One stored row, carried to the range's start and to the newest cycle written (T0 + 90 s): a flat line.
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + 2 * MINUTE)).toEqual([expectedSample(T0, 100n), expectedSample(T0 + 90 * SECOND, 100n)]);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 + 35 * SECOND, T0 + 60 * SECOND)).toEqual([
        expectedSample(T0 + 35 * SECOND, 100n),
        expectedSample(T0 + 60 * SECOND, 100n),
      ]);
      const busy = await s.readPartitionHistory(FLOW, "orders", 1, T0, T0 + 90 * SECOND);
      expect(busy.map((p) => [p.at, p.sourceLogEnd])).toEqual(Array.from({ length: 10 }, (_, i) => [T0 + i * 10 * SECOND, 100n + BigInt(i)]));
    });

    it("rolls 5-minute rows into hourly rows kept 7 days, and keeps an idle partition's last hourly row beyond them", async () => {
      const s = open();
      await sampleAt(s, T0, 5n, 1);
      await sampleAt(s, T0 + 10 * MINUTE, 100n);
      await sampleAt(s, T0 + 50 * MINUTE, 200n);
      await sampleAt(s, T0 + 70 * MINUTE, 300n);
      // Raw (1 h) and 5-minute rows (24 h) are gone: the hourly rows hold each hour's last value.
      await s.prune(T0 + 26 * HOUR);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + 2 * HOUR)).toEqual([expectedSample(T0, 200n), expectedSample(T0 + HOUR, 300n)]);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 + 90 * MINUTE, T0 + 2 * HOUR)).toEqual([expectedSample(T0 + 90 * MINUTE, 300n)]);
      await s.prune(T0 + 10 * DAY);
      // Over 7 days old, but each partition's newest hourly row stays: an idle partition still has its value.
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 + 9 * DAY, T0 + 10 * DAY)).toEqual([expectedSample(T0 + 9 * DAY, 300n)]);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + 10 * DAY)).toEqual([expectedSample(T0 + HOUR, 300n)]);
      expect(await s.readPartitionHistory(FLOW, "orders", 1, T0 + 9 * DAY, T0 + 10 * DAY)).toEqual([expectedSample(T0 + 9 * DAY, 5n)]);
    });

    // Regression (was a bug in lib/store/series.ts, readPartitionHistory): minute rows are read up to `minute < oldestRaw`, so the
    // minute bucket that contains the oldest raw sample is returned too, stamped at the minute's start but
    // holding the minute's LAST value, ahead of the raw samples it duplicates.
    it("does not repeat raw samples as a minute row when the oldest raw sample falls inside a minute", async () => {
      const s = open();
      await sampleAt(s, T0 + 10 * SECOND, 100n);
      await sampleAt(s, T0 + 20 * SECOND, 110n);
      await sampleAt(s, T0 + 30 * SECOND, 120n);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + MINUTE)).toEqual([
        expectedSample(T0 + 10 * SECOND, 100n),
        expectedSample(T0 + 20 * SECOND, 110n),
        expectedSample(T0 + 30 * SECOND, 120n),
      ]);
    });

    it("sums lag per topic per minute, skipping unknown lags, within [from, to]", async () => {
      const s = open();
      await s.recordFlowSamples(
        [
          makeFlow([
            makePartition({ partition: 0, lag: 5n }),
            makePartition({ partition: 1, lag: 7n }),
            makePartition({ partition: 2, lag: null }),
            makePartition({ topic: "payments", targetTopic: "east.payments", lag: 3n }),
          ]),
          makeFlow([makePartition({ lag: 1000n })], "west->east"),
        ],
        T0 + 10 * SECOND,
      );
      await s.recordFlowSamples([makeFlow([makePartition({ partition: 0, lag: 1n }), makePartition({ partition: 1, lag: 2n })])], T0 + MINUTE);
      await s.recordFlowSamples([makeFlow([makePartition({ lag: 99n })])], T0 + 3 * MINUTE);
      expect(await s.readTopicLagSeries(FLOW, T0, T0 + 2 * MINUTE)).toEqual([
        { topic: "orders", at: T0, lag: 12 },
        { topic: "orders", at: T0 + MINUTE, lag: 3 },
        { topic: "payments", at: T0, lag: 3 },
      ]);
    });

    it("prunes raw samples older than one hour and coarse rows past their windows", async () => {
      const s = open();
      await sampleAt(s, T0, 100n);
      await sampleAt(s, T0 + 7 * DAY - HOUR, 200n);
      await sampleAt(s, T0 + 7 * DAY, 300n);
      await s.prune(T0 + 7 * DAY + 30 * SECOND);
      // Left: the raw sample at 7 d and the 5-minute and hourly rows at 7 d − 1 h; T0's are over 24 h and 7 days old.
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 - DAY, T0 + 8 * DAY)).toEqual([
        expectedSample(T0 + 7 * DAY - HOUR, 200n),
        expectedSample(T0 + 7 * DAY, 300n),
      ]);
      await s.prune(T0 + 7 * DAY + HOUR + MINUTE);
      // Now every raw sample is over an hour old: the same offsets come from the 5-minute rows alone.
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 - DAY, T0 + 8 * DAY)).toEqual([
        expectedSample(T0 + 7 * DAY - HOUR, 200n),
        expectedSample(T0 + 7 * DAY, 300n),
      ]);
      await s.prune(T0 + 14 * DAY);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0 - DAY, T0 + 15 * DAY)).toEqual([expectedSample(T0 + 7 * DAY, 300n)]);
    });
  });

  describe("packed samples (migration 7)", () => {
    /** Partition p's end at cycle c: p0 moves every cycle, p1 every 7th, p2 never; p1's values are unknown for a while. */
    const endAt = (p: number, c: number): bigint | null => {
      if (p === 0) return 1_000n + BigInt(c) * 13n + BigInt(c % 5);
      if (p === 1) return c >= 70 && c < 90 ? null : ABOVE_2_53 + BigInt(Math.floor(c / 7));
      return 42n;
    };
    const partitionAt = (p: number, c: number) => {
      const end = endAt(p, c);
      return makePartition({ partition: p, sourceLogEnd: end, mm2Position: end === null ? null : end - 10n, targetLogEnd: end === null ? null : end - 10n, lag: end === null ? null : 10n });
    };
    /** What one row per written sample reads (tiers.ts): the samples in range, the last before `from` at `from`, the last again at the newest cycle. */
    const readUnpacked = (p: number, cycles: number, from: number, to: number) => {
      const written: { at: number; end: bigint | null }[] = [];
      for (let c = 0; c < cycles; c++) if (c === 0 || c === 120 || endAt(p, c) !== endAt(p, c - 1)) written.push({ at: T0 + c * 10 * SECOND, end: endAt(p, c) });
      const sample = (at: number, end: bigint | null) => ({
        at, sourceLogStart: 0n, sourceLogEnd: end, mm2Position: end === null ? null : end - 10n, targetLogEnd: end === null ? null : end - 10n, lag: end === null ? null : 10n,
      });
      const points = written.filter((w) => w.at >= from && w.at <= to).map((w) => sample(w.at, w.end));
      const before = written.filter((w) => w.at < from).at(-1);
      if (before && (points.length === 0 || points[0]!.at > from)) points.unshift(sample(from, before.end));
      const end = Math.min(to, T0 + (cycles - 1) * 10 * SECOND);
      const last = points.at(-1);
      if (last && end > last.at) points.push(sample(end, last.sourceLogEnd));
      return points;
    };

    it("reads 40 minutes of samples across staged and packed buckets and a restart exactly as one row per sample would", async () => {
      let s = open();
      const cycles = 240;
      for (let c = 0; c < cycles; c++) {
        // A restart after cycle 119: the first cycle after it writes every partition again.
        if (c === 120) {
          await s.close();
          opened.splice(opened.indexOf(s), 1);
          s = open();
        }
        await s.recordFlowSamples([makeFlow([0, 1, 2].map((p) => partitionAt(p, c)))], T0 + c * 10 * SECOND);
      }
      const windows: [number, number][] = [[T0, T0 + HOUR], [T0 + 4 * MINUTE + 55 * SECOND, T0 + 15 * MINUTE], [T0 + 19 * MINUTE + 5 * SECOND, T0 + 21 * MINUTE], [T0 + 39 * MINUTE, T0 + 2 * HOUR]];
      for (const p of [0, 1, 2]) {
        for (const [from, to] of windows) expect(await s.readPartitionHistory(FLOW, "orders", p, from, to)).toEqual(readUnpacked(p, cycles, from, to));
      }
      expect((await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + HOUR)).length).toBe(240);
      expect((await s.readPartitionHistory(FLOW, "orders", 1, T0, T0 + HOUR)).length).toBe(readUnpacked(1, cycles, T0, T0 + HOUR).length);
    });

    it("reads every sample once at each write while a closed bucket's 3 chunks are packed over several writes, across a restart", async () => {
      let s = open();
      // 2,100 partitions: 3 chunks of series ids, packed one per write after the close at T0 + 5 min (tiers.ts).
      const flowAt = (c: number) => makeFlow(Array.from({ length: 2100 }, (_, p) => makePartition({ partition: p, sourceLogEnd: 1000n + BigInt(c) * 7n + BigInt(p), mm2Position: 900n })));
      for (let c = 0; c <= 34; c++) {
        if (c === 32) {
          // A restart between the packing of chunk 0 and of the others.
          await s.close();
          opened.splice(opened.indexOf(s), 1);
          s = open();
        }
        await s.recordFlowSamples([flowAt(c)], T0 + c * 10 * SECOND);
        if (c < 29) continue;
        for (const p of [0, 1500, 2099]) {
          const history = await s.readPartitionHistory(FLOW, "orders", p, T0, T0 + HOUR);
          expect(history.map((h) => [h.at, h.sourceLogEnd])).toEqual(Array.from({ length: c + 1 }, (_, k) => [T0 + k * 10 * SECOND, 1000n + BigInt(k) * 7n + BigInt(p)]));
        }
      }
    });

    it("reads the same points while a closed hour's 3 chunks are rolled up over several writes, across a restart", async () => {
      let s = open();
      // 2,100 partitions moving every cycle over the last minute of the hour [T0, T0 + 1 h), then its close: each
      // write after it packs and rolls up one chunk of series ids (rollup-plan.ts), a restart between the first two.
      const H = T0 + HOUR;
      const endOf = (c: number, p: number) => 1000n + BigInt(c) * 7n + BigInt(p);
      const flowAt = (c: number) => makeFlow(Array.from({ length: 2100 }, (_, p) => makePartition({ partition: p, sourceLogEnd: endOf(c, p), mm2Position: 900n })));
      const tail = (p: number) => [...Array.from({ length: 6 }, (_, c) => [H - (6 - c) * 10 * SECOND, endOf(c, p)]), [H - SECOND, endOf(5, p)]];
      for (let c = 0; c <= 11; c++) {
        if (c === 8) {
          await s.close();
          opened.splice(opened.indexOf(s), 1);
          s = open();
        }
        await s.recordFlowSamples([flowAt(c)], H - 60 * SECOND + c * 10 * SECOND);
        if (c < 6) continue;
        for (const p of [0, 1500, 2099]) {
          const history = await s.readPartitionHistory(FLOW, "orders", p, H - 10 * MINUTE, H - SECOND);
          expect(history.map((h) => [h.at, h.sourceLogEnd])).toEqual(tail(p));
        }
      }
      // Once the hour's raw packs are pruned, each series reads its 5-minute point: the last bucket's newest sample.
      await s.prune(H + 66 * MINUTE);
      for (const p of [0, 1500, 2099]) {
        const history = await s.readPartitionHistory(FLOW, "orders", p, H - 10 * MINUTE, H - SECOND);
        expect(history.map((h) => [h.at, h.sourceLogEnd])).toEqual([[H - 5 * MINUTE, endOf(5, p)]]);
      }
    });

    it("merges a late sample into the 5-minute pack that already holds its bucket", async () => {
      const s = open();
      await sampleAt(s, T0 + 10 * SECOND, 100n);
      await sampleAt(s, T0 + 5 * MINUTE + 10 * SECOND, 200n);
      await sampleAt(s, T0 + 20 * SECOND, 110n);
      await sampleAt(s, T0 + 10 * MINUTE + 10 * SECOND, 300n);
      expect(await s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + 11 * MINUTE)).toEqual([
        expectedSample(T0 + 10 * SECOND, 100n),
        expectedSample(T0 + 20 * SECOND, 110n),
        expectedSample(T0 + 5 * MINUTE + 10 * SECOND, 200n),
        expectedSample(T0 + 10 * MINUTE + 10 * SECOND, 300n),
      ]);
    });
  });

  describe("offset sync history", async () => {
    const point = (n: number): OffsetSyncPoint => ({ upstream: BigInt(n) * 10n, downstream: BigInt(n) });

    it("loads syncs per flow partition key in the order they were appended, with exact bigints", async () => {
      const s = open();
      await s.appendOffsetSyncs(FLOW, "orders", 0, [point(1), point(2)], T0);
      await s.appendOffsetSyncs(FLOW, "orders", 1, [{ upstream: ABOVE_2_53, downstream: ABOVE_2_53 - 2n }], T0);
      await s.appendOffsetSyncs("west->east", "orders", 0, [point(9)], T0);
      await s.appendOffsetSyncs(FLOW, "orders", 0, [point(3)], T0 + SECOND);
      await s.appendOffsetSyncs(FLOW, "orders", 0, [], T0 + 2 * SECOND);
      expect(await s.loadOffsetSyncHistory()).toEqual(
        new Map([
          [`${FLOW}|orders|0`, [point(1), point(2), point(3)]],
          [`${FLOW}|orders|1`, [{ upstream: ABOVE_2_53, downstream: ABOVE_2_53 - 2n }]],
          ["west->east|orders|0", [point(9)]],
        ]),
      );
    });

    it("keeps only the newest 20,000 syncs of a partition and leaves other partitions alone", async () => {
      const s = open();
      await s.appendOffsetSyncs(FLOW, "orders", 1, [point(1), point(2), point(3)], T0);
      await s.appendOffsetSyncs(FLOW, "orders", 0, Array.from({ length: 20_005 }, (_, i) => point(i)), T0);
      let history = await s.loadOffsetSyncHistory();
      let kept = history.get(`${FLOW}|orders|0`) ?? [];
      expect([kept.length, kept[0], kept.at(-1)]).toEqual([20_000, point(5), point(20_004)]);
      expect(history.get(`${FLOW}|orders|1`)).toEqual([point(1), point(2), point(3)]);

      await s.appendOffsetSyncs(FLOW, "orders", 0, [point(20_005)], T0 + SECOND);
      history = await s.loadOffsetSyncHistory();
      kept = history.get(`${FLOW}|orders|0`) ?? [];
      expect([kept.length, kept[0], kept.at(-1)]).toEqual([20_000, point(6), point(20_005)]);
    });
  });

  describe("checkpoint history", async () => {
    const checkpoint = (upstream: bigint, at: number, overrides: Partial<CheckpointPoint> = {}): CheckpointPoint => ({
      group: "billing",
      topic: "orders",
      partition: 0,
      upstream,
      downstream: upstream - 1n,
      at,
      ...overrides,
    });

    it("reads a group partition's checkpoints newest first, up to the limit", async () => {
      const s = open();
      await s.appendCheckpoints(FLOW, [checkpoint(10n, T0), checkpoint(20n, T0 + SECOND)]);
      await s.appendCheckpoints(FLOW, [checkpoint(ABOVE_2_53, T0 + 2 * SECOND), checkpoint(5n, T0, { group: "other" }), checkpoint(6n, T0, { partition: 1 })]);
      await s.appendCheckpoints("west->east", [checkpoint(7n, T0)]);
      await s.appendCheckpoints(FLOW, []);
      expect(await s.readCheckpointHistory(FLOW, "billing", "orders", 0, 10)).toEqual([
        checkpoint(ABOVE_2_53, T0 + 2 * SECOND),
        checkpoint(20n, T0 + SECOND),
        checkpoint(10n, T0),
      ]);
      expect(await s.readCheckpointHistory(FLOW, "billing", "orders", 0, 1)).toEqual([checkpoint(ABOVE_2_53, T0 + 2 * SECOND)]);
      expect(await s.readCheckpointHistory(FLOW, "nobody", "orders", 0, 10)).toEqual([]);
    });

    it("prunes checkpoints and events older than 30 days", async () => {
      const s = open();
      await s.appendCheckpoints(FLOW, [checkpoint(1n, T0), checkpoint(2n, T0 + 30 * DAY)]);
      await s.appendEvent({ at: T0, kind: "old", flow: null, cluster: null, message: "old", data: null });
      await s.appendEvent({ at: T0 + 30 * DAY, kind: "new", flow: null, cluster: null, message: "new", data: null });
      await s.prune(T0 + 30 * DAY + SECOND);
      expect(await s.readCheckpointHistory(FLOW, "billing", "orders", 0, 10)).toEqual([checkpoint(2n, T0 + 30 * DAY)]);
      expect((await s.listEvents(0, T0 + 31 * DAY, 10)).map((e) => e.kind)).toEqual(["new"]);
    });
  });

  describe("alerts", async () => {
    it("stores whole alert records and returns them most recently seen first", async () => {
      const s = open();
      const older = makeAlert({ id: "a-1", key: "k1", lastSeen: T0 });
      const newer = makeAlert({ id: "a-2", key: "k2", lastSeen: T0 + MINUTE, flow: null });
      await s.saveAlerts([older, newer]);
      expect(await s.loadAlerts<TestAlert>()).toEqual([newer, older]);
    });

    it("updates an alert saved again under the same id instead of duplicating it", async () => {
      const s = open();
      await s.saveAlerts([makeAlert()]);
      const resolved = makeAlert({ state: "resolved", severity: "info", lastSeen: T0 + 5 * MINUTE, summary: "lag is back to 0" });
      await s.saveAlerts([resolved]);
      expect(await s.loadAlerts<TestAlert>()).toEqual([resolved]);
    });

    it("filters by state, type and flow", async () => {
      const s = open();
      const lagOpen = makeAlert({ id: "a-1", key: "k1", lastSeen: T0 + 3 });
      const lagResolved = makeAlert({ id: "a-2", key: "k2", state: "resolved", lastSeen: T0 + 2 });
      const taskOpenOtherFlow = makeAlert({ id: "a-3", key: "k3", type: "TASK_FAILED", flow: "west->east", lastSeen: T0 + 1 });
      await s.saveAlerts([lagOpen, lagResolved, taskOpenOtherFlow]);
      expect((await s.loadAlerts<TestAlert>({ state: "open" })).map((a) => a.id)).toEqual(["a-1", "a-3"]);
      expect((await s.loadAlerts<TestAlert>({ type: "REPLICATION_LAG" })).map((a) => a.id)).toEqual(["a-1", "a-2"]);
      expect((await s.loadAlerts<TestAlert>({ flow: "west->east" })).map((a) => a.id)).toEqual(["a-3"]);
      expect(await s.loadAlerts<TestAlert>({ state: "open", type: "TASK_FAILED", flow: FLOW })).toEqual([]);
    });
  });

  describe("events", async () => {
    it("lists events within [from, to] newest first, up to the limit, with their data parsed", async () => {
      const s = open();
      await s.appendEvent({ at: T0, kind: "collector-started", flow: null, cluster: null, message: "started", data: undefined });
      await s.appendEvent({ at: T0 + SECOND, kind: "topic-reset", flow: FLOW, cluster: "east", message: "orders was recreated", data: { topic: "orders", before: "1000" } });
      await s.appendEvent({ at: T0 + 2 * SECOND, kind: "later", flow: null, cluster: null, message: "later", data: [1, 2] });
      expect(await s.listEvents(T0, T0 + SECOND, 10)).toEqual([
        { id: 2, at: T0 + SECOND, kind: "topic-reset", flow: FLOW, cluster: "east", message: "orders was recreated", data: { topic: "orders", before: "1000" } },
        { id: 1, at: T0, kind: "collector-started", flow: null, cluster: null, message: "started", data: null },
      ]);
      expect((await s.listEvents(T0, T0 + 2 * SECOND, 1)).map((e) => e.kind)).toEqual(["later"]);
    });
  });

  describe("key-value settings", async () => {
    it("returns null for a missing name and the latest value after writes", async () => {
      const s = open();
      expect(await s.getValue("admin-token")).toBeNull();
      await s.setValue("admin-token", "one");
      await s.setValue("admin-token", "two");
      await s.setValue("other", "x");
      expect([await s.getValue("admin-token"), await s.getValue("other")]).toEqual(["two", "x"]);
    });
  });
  describe("translation series", () => {
    const sample = (partition: number, reread: bigint | null, overrides: Partial<TranslationSample> = {}): TranslationSample => ({
      group: "app",
      topic: "orders",
      partition,
      committed: 100n,
      translated: 90n,
      checkpointDownstream: 80n,
      idealLow: 95n,
      idealHigh: 95n,
      reread,
      failoverReread: 15n,
      groupLag: 5n,
      ...overrides,
    });

    it("reads back a group's samples per partition and time, int64 values exact beyond 2^53", async () => {
      const s = open();
      await s.recordTranslationSamples(FLOW, [sample(1, 7n), sample(0, null, { translated: null, committed: ABOVE_2_53, groupLag: ABOVE_2_53 + 2n })], T0);
      await s.recordTranslationSamples(FLOW, [sample(0, 3n)], T0 + 10 * SECOND);
      await s.recordTranslationSamples(FLOW, [sample(0, 9n, { group: "other" })], T0 + 10 * SECOND);
      await s.recordTranslationSamples(FLOW, [], T0 + 20 * SECOND);
      const series = await s.readTranslationSeries(FLOW, "app", T0, T0 + MINUTE);
      expect(series.map((p) => [p.partition, p.at, p.committed, p.reread, p.translated, p.groupLag])).toEqual([
        [0, T0, ABOVE_2_53, null, null, ABOVE_2_53 + 2n],
        [0, T0 + 10 * SECOND, 100n, 3n, 90n, 5n],
        [1, T0, 100n, 7n, 90n, 5n],
        // Unchanged: carried to the newest cycle written (T0 + 10 s).
        [1, T0 + 10 * SECOND, 100n, 7n, 90n, 5n],
      ]);
      expect(series[2]).toEqual({ ...sample(1, 7n), at: T0 });
    });

    it("keeps the last value of each minute after raw samples are pruned", async () => {
      const s = open();
      await s.recordTranslationSamples(FLOW, [sample(0, 1n)], T0);
      await s.recordTranslationSamples(FLOW, [sample(0, 2n)], T0 + 30 * SECOND);
      await s.recordTranslationSamples(FLOW, [sample(0, 3n)], T0 + 2 * HOUR);
      await s.prune(T0 + 2 * HOUR);
      expect((await s.readTranslationSeries(FLOW, "app", T0 - HOUR, T0 + 3 * HOUR)).map((p) => [p.at, p.reread])).toEqual([
        [T0, 2n],
        [T0 + 2 * HOUR, 3n],
      ]);
    });
  });

  describe("detector memory entries", () => {
    it("applies a key's last change of a call, writing keys in any order", async () => {
      const s = open();
      await s.saveDetectorMemoryEntries([{ key: "watch|b", value: "1" }, { key: "watch|c", value: "2" }]);
      await s.saveDetectorMemoryEntries([
        { key: "watch|z", value: "3" },
        { key: "watch|b", value: null },
        { key: "watch|B", value: "4" },
        { key: "watch|b", value: "5" },
        { key: "watch|c", value: "6" },
        { key: "watch|c", value: null },
        { key: "watch|a", value: "7" },
      ]);
      expect((await s.loadDetectorMemoryEntries("watch|")).sort(([a], [b]) => (a < b ? -1 : 1))).toEqual([
        ["watch|B", "4"],
        ["watch|a", "7"],
        ["watch|b", "5"],
        ["watch|z", "3"],
      ]);
    });

    it("applies written and deleted entries and reloads them after a restart", async () => {
      const first = open();
      await first.saveDetectorMemoryEntries([
        { key: "cycle-at", value: "100" },
        { key: "sync|east->west|orders|0", value: '{"upstream":"9007199254740993"}' },
        { key: "stall|east->west|orders|0", value: '{"position":"5"}' },
      ]);
      await first.saveDetectorMemoryEntries([
        { key: "cycle-at", value: "110" },
        { key: "stall|east->west|orders|0", value: null },
        { key: "finding|k", value: "{}" },
      ]);
      await first.saveDetectorMemoryEntries([]);
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const entries = await open().loadDetectorMemoryEntries();
      expect(entries.sort(([a], [b]) => a.localeCompare(b))).toEqual([
        ["cycle-at", "110"],
        ["finding|k", "{}"],
        ["sync|east->west|orders|0", '{"upstream":"9007199254740993"}'],
      ]);
    });

    it("holds MM2_POSITION_MOVED's marks a version before stored as JSON rows, stored as numbers by the next cycle", async () => {
      const marks = {
        "east->west|orders|0": { committed: "100", highest: "120", topicId: "id-1" },
        "east->west|orders|1": { committed: "90", highest: "120", topicId: null, replacedCommitted: "80", goneSince: T0 },
        // Not exact as a number: kept as a JSON row.
        "east->west|orders|2": { committed: ABOVE_2_53.toString(), highest: ABOVE_2_53.toString(), topicId: "id-1" },
      };
      const first = open();
      await first.saveDetectorMemoryEntries([
        { key: "cycle-at", value: String(T0) },
        ...Object.entries(marks).map(([key, mark]) => ({ key: `committed|${key}`, value: JSON.stringify(mark) })),
      ]);
      const stored = await first.loadDetectorMemoryEntries();
      const loaded = loadDetectorMemoryEntries(stored);
      expect(loaded.memory.committed).toEqual(marks);
      await first.saveDetectorMemoryEntries(createMemoryPersister(stored).listChanges(loaded.memory, T0 + MINUTE));
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const upgraded = await open().loadDetectorMemoryEntries();
      expect(upgraded.map(([key]) => key).sort()).toEqual([
        "committed-marks-keys|east->west|0",
        "committed-marks-texts|east->west|0",
        "committed-marks|east->west|0",
        "committed|east->west|orders|2",
        "cycle-at",
      ]);
      expect(loadDetectorMemoryEntries(upgraded).memory.committed).toEqual(marks);
    });

    it("loads only the entries of one prefix (a collector's shard), % and _ taken literally", async () => {
      const store = open();
      await store.saveDetectorMemoryEntries([
        { key: "@1|cycle-at", value: "100" },
        { key: "@1|finding|DATA_LOSS|east->west|orders|0|5", value: "{}" },
        { key: "@10|cycle-at", value: "200" },
        { key: "@1_|cycle-at", value: "300" },
        { key: "cycle-at", value: "400" },
      ]);
      const sorted = (entries: [string, string][]) => entries.sort(([a], [b]) => a.localeCompare(b));
      expect(sorted(await store.loadDetectorMemoryEntries("@1|"))).toEqual([
        ["@1|cycle-at", "100"],
        ["@1|finding|DATA_LOSS|east->west|orders|0|5", "{}"],
      ]);
      expect(await store.loadDetectorMemoryEntries("@1%")).toEqual([]);
      expect(await store.loadDetectorMemoryEntries("@2|")).toEqual([]);
      expect((await store.loadDetectorMemoryEntries()).length).toBe(5);
    });
  });

  describe("change-only translation samples", () => {
    const sample = (partition: number, committed: bigint): TranslationSample => ({
      group: "app", topic: "orders", partition, committed, translated: committed - 10n, checkpointDownstream: null,
      idealLow: committed - 10n, idealHigh: committed - 10n, reread: 0n, failoverReread: null, groupLag: 3n,
    });

    it("writes an idle group partition once over 6 cycles, carries it to `from`, and writes each commit of a busy one", async () => {
      const s = open();
      for (let i = 0; i < 6; i++) await s.recordTranslationSamples(FLOW, [sample(0, 50n), sample(1, 100n + BigInt(i))], T0 + i * 10 * SECOND);
      const series = await s.readTranslationSeries(FLOW, "app", T0 + 5 * SECOND, T0 + MINUTE);
      expect(series.map((p) => [p.partition, p.at, p.committed])).toEqual([
        [0, T0 + 5 * SECOND, 50n],
        [0, T0 + 50 * SECOND, 50n],
        [1, T0 + 5 * SECOND, 100n],
        [1, T0 + 10 * SECOND, 101n],
        [1, T0 + 20 * SECOND, 102n],
        [1, T0 + 30 * SECOND, 103n],
        [1, T0 + 40 * SECOND, 104n],
        [1, T0 + 50 * SECOND, 105n],
      ]);
      expect(series[0]).toEqual({ ...sample(0, 50n), at: T0 + 5 * SECOND });
    });
  });

  describe("topic rollup", () => {
    it("writes a topic's lag only when it changed and carries the last one to `from`", async () => {
      const s = open();
      const cycle = (at: number, lag: bigint) => s.recordFlowSamples([makeFlow([makePartition({ lag })])], at);
      await cycle(T0, 5n);
      await cycle(T0 + MINUTE, 5n);
      await cycle(T0 + 2 * MINUTE, 5n);
      await cycle(T0 + 3 * MINUTE, 8n);
      expect(await s.readTopicLagSeries(FLOW, T0, T0 + 3 * MINUTE)).toEqual([
        { topic: "orders", at: T0, lag: 5 },
        { topic: "orders", at: T0 + 3 * MINUTE, lag: 8 },
      ]);
      expect(await s.readTopicLagSeries(FLOW, T0 + MINUTE, T0 + 2 * MINUTE)).toEqual([{ topic: "orders", at: T0 + MINUTE, lag: 5 }]);
    });

    it("writes a topic's lag again when it returns to an earlier value, judging each flow's topics apart", async () => {
      const s = open();
      const cycle = (at: number, lag: bigint, id = FLOW) => s.recordFlowSamples([makeFlow([makePartition({ lag })], id)], at);
      await cycle(T0, 5n);
      await cycle(T0, 5n, "west->east");
      await cycle(T0 + MINUTE, 8n);
      await cycle(T0 + MINUTE, 5n, "west->east");
      await cycle(T0 + 2 * MINUTE, 5n);
      await cycle(T0 + 2 * MINUTE, 5n, "west->east");
      expect(await s.readTopicLagSeries(FLOW, T0, T0 + 2 * MINUTE)).toEqual([
        { topic: "orders", at: T0, lag: 5 },
        { topic: "orders", at: T0 + MINUTE, lag: 8 },
        { topic: "orders", at: T0 + 2 * MINUTE, lag: 5 },
      ]);
      expect(await s.readTopicLagSeries("west->east", T0, T0 + 2 * MINUTE)).toEqual([{ topic: "orders", at: T0, lag: 5 }]);
    });

    it("reads a topic's minutes across its hour rows, carrying the last one before `from`, and compacts each hour to its largest lag", async () => {
      const s = open();
      const cycle = (at: number, lag: bigint) => s.recordFlowSamples([makeFlow([makePartition({ lag })])], at);
      await cycle(T0 + 50 * MINUTE, 3n);
      await cycle(T0 + 59 * MINUTE, 4n);
      await cycle(T0 + 61 * MINUTE, 4n);
      await cycle(T0 + 62 * MINUTE, 6n);
      await cycle(T0 + 62 * MINUTE + 30 * SECOND, 7n);
      await cycle(T0 + 130 * MINUTE, 9n);
      // The minute's last cycle wins; a range inside an hour carries the point before it from the same or an older hour.
      expect(await s.readTopicLagSeries(FLOW, T0 + 65 * MINUTE, T0 + 125 * MINUTE)).toEqual([{ topic: "orders", at: T0 + 65 * MINUTE, lag: 7 }]);
      expect(await s.readTopicLagSeries(FLOW, T0 + 61 * MINUTE, T0 + 61 * MINUTE)).toEqual([{ topic: "orders", at: T0 + 61 * MINUTE, lag: 4 }]);
      expect(await s.readTopicLagSeries(FLOW, T0 + 60 * MINUTE, T0 + 180 * MINUTE)).toEqual([
        { topic: "orders", at: T0 + 60 * MINUTE, lag: 4 },
        { topic: "orders", at: T0 + 62 * MINUTE, lag: 7 },
        { topic: "orders", at: T0 + 130 * MINUTE, lag: 9 },
      ]);
      // 24 h later the first two hours hold their largest lag at the hour's start; the third keeps its minutes.
      await s.prune(T0 + DAY + 150 * MINUTE);
      expect(await s.readTopicLagSeries(FLOW, T0, T0 + 180 * MINUTE)).toEqual([
        { topic: "orders", at: T0, lag: 4 },
        { topic: "orders", at: T0 + 60 * MINUTE, lag: 7 },
        { topic: "orders", at: T0 + 130 * MINUTE, lag: 9 },
      ]);
    });

    it("keeps each topic's lag of the minute's last cycle, per flow, for seven days", async () => {
      const s = open();
      const cycle = (at: number, lags: [string, number, bigint | null][], id = FLOW) =>
        s.recordFlowSamples([makeFlow(lags.map(([topic, partition, lag]) => makePartition({ topic, partition, lag })), id)], at);
      await cycle(T0, [["orders", 0, 5n], ["orders", 1, 6n], ["payments", 0, null]]);
      await cycle(T0 + 30 * SECOND, [["orders", 0, 1n], ["orders", 1, ABOVE_2_53], ["payments", 0, null]]);
      await cycle(T0 + 30 * SECOND, [["orders", 0, 100n]], "west->east");
      await cycle(T0 + 2 * MINUTE, [["orders", 0, 7n], ["orders", 1, 8n], ["payments", 0, 2n]]);
      expect(await s.readTopicLagSeries(FLOW, T0, T0 + 2 * MINUTE)).toEqual([
        { topic: "orders", at: T0, lag: Number(ABOVE_2_53 + 1n) },
        { topic: "orders", at: T0 + 2 * MINUTE, lag: 15 },
        { topic: "payments", at: T0, lag: 0 },
        { topic: "payments", at: T0 + 2 * MINUTE, lag: 2 },
      ]);
      expect(await s.readTopicLagSeries("west->east", T0, T0 + 2 * MINUTE)).toEqual([{ topic: "orders", at: T0, lag: 100 }]);
      // Minutes older than 24 h become one row per hour with the hour's largest lag; a topic's newest row stays.
      await s.prune(T0 + 7 * DAY + MINUTE);
      expect(await s.readTopicLagSeries(FLOW, T0, T0 + 8 * DAY)).toEqual([
        { topic: "orders", at: T0, lag: Number(ABOVE_2_53 + 1n) },
        { topic: "payments", at: T0, lag: 2 },
      ]);
      await s.recordFlowSamples([makeFlow([makePartition({ lag: 4n })])], T0 + 8 * DAY);
      await s.prune(T0 + 8 * DAY);
      // The hourly rows are over 7 days old: orders keeps only its new row, payments its newest (carried to `from`).
      expect(await s.readTopicLagSeries(FLOW, T0 + 7 * DAY, T0 + 8 * DAY)).toEqual([
        { topic: "orders", at: T0 + 8 * DAY, lag: 4 },
        { topic: "payments", at: T0 + 7 * DAY, lag: 2 },
      ]);
    });
  });

  describe("notification outbox and ledger", () => {
    const delivery = (alertId: string, overrides: Partial<NotificationDelivery> = {}): NotificationDelivery => ({
      alertId,
      transition: "fired",
      at: T0,
      target: "webhook-1",
      queuedAt: T0 + SECOND,
      payload: `{"type":"fired","alert":{"id":"${alertId}"}}`,
      ...overrides,
    });
    const keysOf = (rows: readonly QueuedNotification[]) => rows.map((r) => `${r.alertId}|${r.transition}|${r.at - T0}|${r.target}`);

    it("queues with the alerts only the deliveries whose ledger claim wins, keeps them pending across a restart, until finished", async () => {
      const first = open();
      const fired = delivery("a-1");
      const queued = await first.saveAlerts([makeAlert()], [fired, delivery("a-1", { target: "webhook-2" }), delivery("a-2", { transition: "resolved" })]);
      expect(keysOf(queued)).toEqual(["a-1|fired|0|webhook-1", "a-1|fired|0|webhook-2", "a-2|resolved|0|webhook-1"]);
      expect(queued[0]).toEqual({ ...fired, id: queued[0]!.id, lease: null });
      expect(queued[1]!.id > queued[0]!.id && queued[2]!.id > queued[1]!.id).toBe(true);
      // The same key again (a restart judging the cycle again, a shard's new owner) queues nothing; a later incident does.
      expect(keysOf(await first.saveAlerts([makeAlert()], [fired, delivery("a-1", { at: T0 + MINUTE })]))).toEqual(["a-1|fired|60000|webhook-1"]);
      expect(await first.loadAlerts<TestAlert>()).toEqual([makeAlert()]);
      await first.finishNotifications([queued[0]!.id], "delivered", T0 + 2 * SECOND);
      await first.finishNotifications([queued[2]!.id], "dropped", T0 + 2 * SECOND);
      await first.finishNotifications([], "delivered", T0 + 2 * SECOND);
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const second = open();
      expect(keysOf(await second.listQueuedNotifications())).toEqual(["a-1|fired|0|webhook-2", "a-1|fired|60000|webhook-1"]);
      expect(await second.saveAlerts([], [fired, delivery("a-2", { transition: "resolved" })])).toEqual([]);
    });

    it("leases rows to the collector that wrote them; another takes them only once the lease ran out, finished ones never", async () => {
      const [a, b] = [open(), open()];
      const leaseA = { owner: "collector-a", until: T0 + 30 * SECOND };
      const [held, finished] = await a.saveAlerts([], [delivery("l-1"), delivery("l-2")], leaseA);
      expect([held!.lease, finished!.lease]).toEqual([leaseA, leaseA]);
      expect((await b.listQueuedNotifications()).map((r) => [r.alertId, r.lease])).toEqual([["l-1", leaseA], ["l-2", leaseA]]);
      await a.finishNotifications([finished!.id], "delivered", T0 + SECOND);
      const leaseB = { owner: "collector-b", until: T0 + 90 * SECOND };
      // While collector-a's lease runs, collector-b gets nothing; collector-a renews its own.
      expect(await b.leaseNotifications([held!.id, finished!.id], leaseB, T0 + 29 * SECOND)).toEqual([]);
      const renewed = { owner: "collector-a", until: T0 + 60 * SECOND };
      expect(await a.leaseNotifications([held!.id, finished!.id], renewed, T0 + 29 * SECOND)).toEqual([held!.id]);
      expect(await b.leaseNotifications([held!.id], leaseB, T0 + 59 * SECOND)).toEqual([]);
      // Not renewed: once it ran out, collector-b takes the pending row, never the finished one.
      expect(await b.leaseNotifications([held!.id, finished!.id], leaseB, T0 + 61 * SECOND)).toEqual([held!.id]);
      expect((await a.listQueuedNotifications()).map((r) => [r.alertId, r.lease])).toEqual([["l-1", leaseB]]);
      expect(await a.leaseNotifications([held!.id], renewed, T0 + 62 * SECOND)).toEqual([]);
      expect(await a.leaseNotifications([], renewed, T0)).toEqual([]);
    });

    it("decides two concurrent writes of one delivery for exactly one of them", async () => {
      const [a, b] = [open(), open()];
      const d = delivery("a-2", { transition: "resolved" });
      const [x, y] = await Promise.all([a.saveAlerts([], [d]), b.saveAlerts([], [d])]);
      expect([...keysOf(x!), ...keysOf(y!)]).toEqual(["a-2|resolved|0|webhook-1"]);
      expect(keysOf(await a.listQueuedNotifications())).toEqual(["a-2|resolved|0|webhook-1"]);
    });

    it("forgets claims older than 30 days and rows finished 30 days ago when pruned, never a pending row", async () => {
      const s = open();
      const [old, recent, pending] = await s.saveAlerts([], [delivery("a-3"), delivery("a-3", { at: T0 + 2 * DAY }), delivery("a-4")]);
      await s.finishNotifications([old!.id], "delivered", T0);
      await s.finishNotifications([recent!.id], "delivered", T0 + 2 * DAY);
      await s.prune(T0 + 31 * DAY);
      expect(keysOf(await s.listQueuedNotifications())).toEqual(["a-4|fired|0|webhook-1"]);
      expect(keysOf(await s.saveAlerts([], [delivery("a-3"), delivery("a-3", { at: T0 + 2 * DAY })]))).toEqual(["a-3|fired|0|webhook-1"]);
      expect(pending!.id).toBeGreaterThan(recent!.id);
    });
  });

  describe("revoked sessions", () => {
    it("keeps a revoked session across a restart until it expires, and prunes it then", async () => {
      const first = open();
      await first.revokeSession({ sessionId: "session-a", expiresAt: T0 + HOUR });
      await first.revokeSession({ sessionId: "session-b", expiresAt: T0 + 8 * HOUR });
      await first.revokeSession({ sessionId: "session-a", expiresAt: T0 + HOUR });
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const second = open();
      const byId = (rows: RevokedSession[]) => [...rows].sort((x, y) => (x.sessionId < y.sessionId ? -1 : 1));
      expect(byId(await second.listRevokedSessions(T0))).toEqual([
        { sessionId: "session-a", expiresAt: T0 + HOUR },
        { sessionId: "session-b", expiresAt: T0 + 8 * HOUR },
      ]);
      expect(await second.listRevokedSessions(T0 + HOUR)).toEqual([{ sessionId: "session-b", expiresAt: T0 + 8 * HOUR }]);
      await second.prune(T0 + HOUR);
      expect(await second.listRevokedSessions(0)).toEqual([{ sessionId: "session-b", expiresAt: T0 + 8 * HOUR }]);
    });
  });

  describe("restart", () => {
    it("keeps every kind of data across close and reopen (migrations applied once, nothing lost)", async () => {
      const first = open();
      await sampleAt(first, T0, ABOVE_2_53);
      await first.appendOffsetSyncs(FLOW, "orders", 0, [{ upstream: ABOVE_2_53, downstream: 7n }], T0);
      await first.appendCheckpoints(FLOW, [{ group: "billing", topic: "orders", partition: 0, upstream: 11n, downstream: 10n, at: T0 }]);
      await first.saveAlerts([makeAlert()]);
      await first.appendEvent({ at: T0, kind: "alert-fired", flow: FLOW, cluster: null, message: "fired", data: { id: "a-1" } });
      await first.setValue("detector-memory", "{}");
      await first.close();
      opened.splice(opened.indexOf(first), 1);

      const second = open();
      expect(await second.readPartitionHistory(FLOW, "orders", 0, T0, T0 + MINUTE)).toEqual([expectedSample(T0, ABOVE_2_53)]);
      expect(await second.loadOffsetSyncHistory()).toEqual(new Map([[`${FLOW}|orders|0`, [{ upstream: ABOVE_2_53, downstream: 7n }]]]));
      expect(await second.readCheckpointHistory(FLOW, "billing", "orders", 0, 5)).toEqual([
        { group: "billing", topic: "orders", partition: 0, upstream: 11n, downstream: 10n, at: T0 },
      ]);
      expect(await second.loadAlerts<TestAlert>()).toEqual([makeAlert()]);
      expect(await second.listEvents(T0, T0, 5)).toEqual([{ id: 1, at: T0, kind: "alert-fired", flow: FLOW, cluster: null, message: "fired", data: { id: "a-1" } }]);
      expect(await second.getValue("detector-memory")).toBe("{}");
      // Ids go on after a restart: a new event is not numbered 1 again.
      await second.appendEvent({ at: T0 + SECOND, kind: "later", flow: null, cluster: null, message: "later", data: null });
      expect((await second.listEvents(T0, T0 + SECOND, 5)).map((e) => e.id)).toEqual([2, 1]);
    });
  });

  describe("a cycle's samples", () => {
    it("writes 2,500 partitions of two flows in one call and reads each back exactly", async () => {
      const s = open();
      const partitions = Array.from({ length: 2500 }, (_, i) =>
        makePartition({ topic: `t${i % 50}`, partition: Math.floor(i / 50), sourceLogEnd: ABOVE_2_53 + BigInt(i), lag: BigInt(i) }),
      );
      await s.recordFlowSamples([makeFlow(partitions), makeFlow(partitions.slice(0, 10), "west->east")], T0);
      const last = await s.readPartitionHistory(FLOW, "t49", 49, T0, T0);
      expect(last.map((p) => [p.sourceLogEnd, p.lag])).toEqual([[ABOVE_2_53 + 2499n, 2499n]]);
      const sums = await s.readTopicLagSeries(FLOW, T0, T0);
      expect(sums).toHaveLength(50);
      // t0 holds partitions i = 0, 50, …, 2450: lag sum 50 · 1225 = 61,250.
      expect(sums[0]).toEqual({ topic: "t0", at: T0, lag: 61_250 });
    });
  });

  describe("published read models (roles)", () => {
    it("keeps one row per shard, replaced by each publish, and lists versions without bodies", async () => {
      const s = open();
      expect(await s.listReadModelVersions()).toEqual([]);
      expect(await s.readReadModel("all")).toBeNull();
      await s.publishReadModel({ shard: "all", cycle: 1, takenAt: T0, body: Buffer.from('{"cycle":1}') });
      await s.publishReadModel({ shard: "shard-2", cycle: 40, takenAt: T0 + 5 * SECOND, body: Buffer.from('{"cycle":40}') });
      await s.publishReadModel({ shard: "all", cycle: 2, takenAt: T0 + 10 * SECOND, body: Buffer.from('{"cycle":2}') });
      expect(await s.listReadModelVersions()).toEqual([
        { shard: "all", cycle: 2, takenAt: T0 + 10 * SECOND },
        { shard: "shard-2", cycle: 40, takenAt: T0 + 5 * SECOND },
      ]);
      expect(await s.readReadModel("all")).toEqual({ shard: "all", cycle: 2, takenAt: T0 + 10 * SECOND, body: Buffer.from('{"cycle":2}') });
    });

    it("stores a 2 MB body of any bytes exactly and keeps it across close and reopen", async () => {
      // Every byte value (zeros, and sequences that are not UTF-8), as the columnar blob holds them.
      const offsets = JSON.stringify({ offsets: Array.from({ length: 100_000 }, (_, i) => `${ABOVE_2_53 + BigInt(i)}`) });
      const body = Buffer.concat([Buffer.from(offsets), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256))]);
      const first = open();
      await first.publishReadModel({ shard: "all", cycle: 9, takenAt: T0, body });
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const again = open();
      const row = await again.readReadModel("all");
      expect([row?.cycle, row?.body.length, row?.body.equals(body)]).toEqual([9, body.length, true]);
    });

    it("stores a body given in pieces as the pieces joined", async () => {
      const s = open();
      const pieces = [Buffer.from("gapwatch-columnar 2\n{}\n"), Buffer.alloc(0), Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256))];
      await s.publishReadModel({ shard: "all", cycle: 3, takenAt: T0, body: pieces });
      expect(await s.readReadModel("all")).toEqual({ shard: "all", cycle: 3, takenAt: T0, body: Buffer.concat(pieces) });
    });

    it("retires a shard's model only while it is the version named, body and all; a newer publication stays", async () => {
      const s = open();
      const body = Buffer.from(Array.from({ length: 3 << 20 }, (_, i) => i % 251)); // several SQLite chunks
      await s.publishReadModel({ shard: "collector-a", cycle: 7, takenAt: T0, body });
      await s.publishReadModel({ shard: "collector-b", cycle: 3, takenAt: T0 + SECOND, body: Buffer.from("b") });
      // Another version of the shard (a newer cycle, or the same cycle taken at another time) is not retired.
      expect(await s.retireReadModel({ shard: "collector-a", cycle: 6, takenAt: T0 })).toBe(false);
      expect(await s.retireReadModel({ shard: "collector-a", cycle: 7, takenAt: T0 - 1 })).toBe(false);
      expect((await s.readReadModel("collector-a"))?.body.equals(body)).toBe(true);
      expect(await s.retireReadModel({ shard: "collector-a", cycle: 7, takenAt: T0 })).toBe(true);
      expect([await s.readReadModel("collector-a"), await s.retireReadModel({ shard: "collector-a", cycle: 7, takenAt: T0 })]).toEqual([null, false]);
      expect(await s.listReadModelVersions()).toEqual([{ shard: "collector-b", cycle: 3, takenAt: T0 + SECOND }]);
      // Published again after it was retired: a row like any other, its body whole.
      await s.publishReadModel({ shard: "collector-a", cycle: 8, takenAt: T0 + 2 * SECOND, body: Buffer.from("again") });
      expect(await s.readReadModel("collector-a")).toEqual({ shard: "collector-a", cycle: 8, takenAt: T0 + 2 * SECOND, body: Buffer.from("again") });
    });

    it("queues acknowledgements (the latest per alert wins), lists them oldest first, and deletes the applied ones", async () => {
      const s = open();
      await s.requestAcknowledgement({ alertId: "00000000000000b2", by: "admin", at: T0 + 2 * SECOND });
      await s.requestAcknowledgement({ alertId: "00000000000000a1", by: "admin", at: T0 + 3 * SECOND });
      await s.requestAcknowledgement({ alertId: "00000000000000b2", by: "ops", at: T0 + 4 * SECOND });
      expect(await s.listAcknowledgementRequests()).toEqual([
        { alertId: "00000000000000a1", by: "admin", at: T0 + 3 * SECOND },
        { alertId: "00000000000000b2", by: "ops", at: T0 + 4 * SECOND },
      ]);
      await s.deleteAcknowledgementRequests(["00000000000000b2", "00000000000000ff"]);
      await s.deleteAcknowledgementRequests([]);
      expect(await s.listAcknowledgementRequests()).toEqual([{ alertId: "00000000000000a1", by: "admin", at: T0 + 3 * SECOND }]);
    });
  });
}
