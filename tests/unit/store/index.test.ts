import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CheckpointPoint, Flow, FlowPartition, OffsetSyncPoint } from "@/lib/collector/types";
import { createSqliteStore, type Store, type StoredAlert } from "@/lib/store";

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
function sampleAt(store: Store, at: number, end: bigint, partition = 0): void {
  store.recordFlowSamples([makeFlow([makePartition({ partition, sourceLogEnd: end, mm2Position: end - 10n, targetLogEnd: end - 10n, lag: 10n })])], at);
}

function expectedSample(at: number, end: bigint) {
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

let dir: string;
let file: string;
let store: Store | null;

function open(): Store {
  store = createSqliteStore(file);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-store-"));
  file = path.join(dir, "nested", "gapwatch.db");
  store = null;
});

afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("migrations", () => {
  it("creates the database file's folder and applies migration 1 once across re-opens, keeping the data", () => {
    const first = open();
    first.setValue("cluster-id", "abc");
    first.close();
    store = null;

    const second = open();
    expect(second.getValue("cluster-id")).toBe("abc");
    second.close();
    store = null;

    const db = new Database(file, { readonly: true });
    try {
      const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[];
      expect(versions).toEqual([{ version: 1 }, { version: 2 }]);
    } finally {
      db.close();
    }
  });
});

describe("partition samples", () => {
  it("round-trips offsets exactly, including values above 2^53, and nulls", () => {
    const s = open();
    s.recordFlowSamples(
      [
        makeFlow([
          makePartition({ sourceLogStart: ABOVE_2_53 - 5n, sourceLogEnd: ABOVE_2_53, mm2Position: ABOVE_2_53 - 1n, targetLogEnd: null, lag: 1n }),
          makePartition({ partition: 1, sourceLogStart: null, sourceLogEnd: null, mm2Position: null, targetLogEnd: null, lag: null }),
        ]),
      ],
      T0,
    );
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + MINUTE)).toEqual([
      { at: T0, sourceLogStart: ABOVE_2_53 - 5n, sourceLogEnd: ABOVE_2_53, mm2Position: ABOVE_2_53 - 1n, targetLogEnd: null, lag: 1n },
    ]);
    expect(s.readPartitionHistory(FLOW, "orders", 1, T0, T0 + MINUTE)).toEqual([
      { at: T0, sourceLogStart: null, sourceLogEnd: null, mm2Position: null, targetLogEnd: null, lag: null },
    ]);
  });

  it("returns raw samples in time order within [from, to] and only for the asked partition and flow", () => {
    const s = open();
    sampleAt(s, T0 + 20 * SECOND, 300n);
    sampleAt(s, T0 + 10 * SECOND, 200n);
    sampleAt(s, T0, 100n);
    sampleAt(s, T0 + 10 * SECOND, 999n, 1);
    s.recordFlowSamples([makeFlow([makePartition()], "west->east")], T0 + 10 * SECOND);
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0 + 5 * SECOND, T0 + 20 * SECOND)).toEqual([
      expectedSample(T0 + 10 * SECOND, 200n),
      expectedSample(T0 + 20 * SECOND, 300n),
    ]);
  });

  it("returns nothing for a partition without samples", () => {
    expect(open().readPartitionHistory(FLOW, "orders", 7, T0, T0 + HOUR)).toEqual([]);
  });

  it("rolls samples into one row per minute that keeps the minute's last value", () => {
    const s = open();
    sampleAt(s, T0 + 10 * SECOND, 100n);
    sampleAt(s, T0 + 50 * SECOND, 150n);
    sampleAt(s, T0 + 30 * SECOND, 130n);
    sampleAt(s, T0 + MINUTE + 10 * SECOND, 200n);
    s.prune(T0 + HOUR + 2 * MINUTE);
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + HOUR)).toEqual([expectedSample(T0, 130n), expectedSample(T0 + MINUTE, 200n)]);
  });

  it("answers with minute rows before the oldest raw sample and raw samples from it on", () => {
    const s = open();
    sampleAt(s, T0, 100n);
    sampleAt(s, T0 + 30 * SECOND, 130n);
    sampleAt(s, T0 + 60 * SECOND, 160n);
    sampleAt(s, T0 + 90 * SECOND, 190n);
    sampleAt(s, T0 + 120 * SECOND, 220n);
    s.prune(T0 + HOUR + MINUTE);
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + 120 * SECOND)).toEqual([
      expectedSample(T0, 130n),
      expectedSample(T0 + 60 * SECOND, 160n),
      expectedSample(T0 + 90 * SECOND, 190n),
      expectedSample(T0 + 120 * SECOND, 220n),
    ]);
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0 + 90 * SECOND, T0 + 120 * SECOND)).toEqual([
      expectedSample(T0 + 90 * SECOND, 190n),
      expectedSample(T0 + 120 * SECOND, 220n),
    ]);
  });

  // Regression (was a bug in lib/store/series.ts, readPartitionHistory): minute rows are read up to `minute < oldestRaw`, so the
  // minute bucket that contains the oldest raw sample is returned too, stamped at the minute's start but
  // holding the minute's LAST value, ahead of the raw samples it duplicates.
  it("does not repeat raw samples as a minute row when the oldest raw sample falls inside a minute", () => {
    const s = open();
    sampleAt(s, T0 + 10 * SECOND, 100n);
    sampleAt(s, T0 + 20 * SECOND, 110n);
    sampleAt(s, T0 + 30 * SECOND, 120n);
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0, T0 + MINUTE)).toEqual([
      expectedSample(T0 + 10 * SECOND, 100n),
      expectedSample(T0 + 20 * SECOND, 110n),
      expectedSample(T0 + 30 * SECOND, 120n),
    ]);
  });

  it("sums lag per topic per minute, skipping unknown lags, within [from, to]", () => {
    const s = open();
    s.recordFlowSamples(
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
    s.recordFlowSamples([makeFlow([makePartition({ partition: 0, lag: 1n }), makePartition({ partition: 1, lag: 2n })])], T0 + MINUTE);
    s.recordFlowSamples([makeFlow([makePartition({ lag: 99n })])], T0 + 3 * MINUTE);
    expect(s.readTopicLagSeries(FLOW, T0, T0 + 2 * MINUTE)).toEqual([
      { topic: "orders", at: T0, lag: 12 },
      { topic: "orders", at: T0 + MINUTE, lag: 3 },
      { topic: "payments", at: T0, lag: 3 },
    ]);
  });

  it("prunes raw samples older than one hour and minute rows older than seven days", () => {
    const s = open();
    sampleAt(s, T0, 100n);
    sampleAt(s, T0 + 7 * DAY - HOUR, 200n);
    sampleAt(s, T0 + 7 * DAY, 300n);
    s.prune(T0 + 7 * DAY + 30 * SECOND);
    // Left: the raw sample at 7 d and the minute rows at 7 d − 1 h and 7 d; the T0 minute row is over 7 days old.
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0 - DAY, T0 + 8 * DAY)).toEqual([
      expectedSample(T0 + 7 * DAY - HOUR, 200n),
      expectedSample(T0 + 7 * DAY, 300n),
    ]);
    s.prune(T0 + 7 * DAY + HOUR + MINUTE);
    // Now every raw sample is over an hour old: the same offsets come from the minute rows alone.
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0 - DAY, T0 + 8 * DAY)).toEqual([
      expectedSample(T0 + 7 * DAY - HOUR, 200n),
      expectedSample(T0 + 7 * DAY, 300n),
    ]);
    s.prune(T0 + 14 * DAY);
    expect(s.readPartitionHistory(FLOW, "orders", 0, T0 - DAY, T0 + 15 * DAY)).toEqual([expectedSample(T0 + 7 * DAY, 300n)]);
  });
});

describe("offset sync history", () => {
  const point = (n: number): OffsetSyncPoint => ({ upstream: BigInt(n) * 10n, downstream: BigInt(n) });

  it("loads syncs per flow partition key in the order they were appended, with exact bigints", () => {
    const s = open();
    s.appendOffsetSyncs(FLOW, "orders", 0, [point(1), point(2)], T0);
    s.appendOffsetSyncs(FLOW, "orders", 1, [{ upstream: ABOVE_2_53, downstream: ABOVE_2_53 - 2n }], T0);
    s.appendOffsetSyncs("west->east", "orders", 0, [point(9)], T0);
    s.appendOffsetSyncs(FLOW, "orders", 0, [point(3)], T0 + SECOND);
    s.appendOffsetSyncs(FLOW, "orders", 0, [], T0 + 2 * SECOND);
    expect(s.loadOffsetSyncHistory()).toEqual(
      new Map([
        [`${FLOW}|orders|0`, [point(1), point(2), point(3)]],
        [`${FLOW}|orders|1`, [{ upstream: ABOVE_2_53, downstream: ABOVE_2_53 - 2n }]],
        ["west->east|orders|0", [point(9)]],
      ]),
    );
  });

  it("keeps only the newest 20,000 syncs of a partition and leaves other partitions alone", () => {
    const s = open();
    s.appendOffsetSyncs(FLOW, "orders", 1, [point(1), point(2), point(3)], T0);
    s.appendOffsetSyncs(FLOW, "orders", 0, Array.from({ length: 20_005 }, (_, i) => point(i)), T0);
    let history = s.loadOffsetSyncHistory();
    let kept = history.get(`${FLOW}|orders|0`) ?? [];
    expect([kept.length, kept[0], kept.at(-1)]).toEqual([20_000, point(5), point(20_004)]);
    expect(history.get(`${FLOW}|orders|1`)).toEqual([point(1), point(2), point(3)]);

    s.appendOffsetSyncs(FLOW, "orders", 0, [point(20_005)], T0 + SECOND);
    history = s.loadOffsetSyncHistory();
    kept = history.get(`${FLOW}|orders|0`) ?? [];
    expect([kept.length, kept[0], kept.at(-1)]).toEqual([20_000, point(6), point(20_005)]);
  });
});

describe("checkpoint history", () => {
  const checkpoint = (upstream: bigint, at: number, overrides: Partial<CheckpointPoint> = {}): CheckpointPoint => ({
    group: "billing",
    topic: "orders",
    partition: 0,
    upstream,
    downstream: upstream - 1n,
    at,
    ...overrides,
  });

  it("reads a group partition's checkpoints newest first, up to the limit", () => {
    const s = open();
    s.appendCheckpoints(FLOW, [checkpoint(10n, T0), checkpoint(20n, T0 + SECOND)]);
    s.appendCheckpoints(FLOW, [checkpoint(ABOVE_2_53, T0 + 2 * SECOND), checkpoint(5n, T0, { group: "other" }), checkpoint(6n, T0, { partition: 1 })]);
    s.appendCheckpoints("west->east", [checkpoint(7n, T0)]);
    s.appendCheckpoints(FLOW, []);
    expect(s.readCheckpointHistory(FLOW, "billing", "orders", 0, 10)).toEqual([
      checkpoint(ABOVE_2_53, T0 + 2 * SECOND),
      checkpoint(20n, T0 + SECOND),
      checkpoint(10n, T0),
    ]);
    expect(s.readCheckpointHistory(FLOW, "billing", "orders", 0, 1)).toEqual([checkpoint(ABOVE_2_53, T0 + 2 * SECOND)]);
    expect(s.readCheckpointHistory(FLOW, "nobody", "orders", 0, 10)).toEqual([]);
  });

  it("prunes checkpoints and events older than 30 days", () => {
    const s = open();
    s.appendCheckpoints(FLOW, [checkpoint(1n, T0), checkpoint(2n, T0 + 30 * DAY)]);
    s.appendEvent({ at: T0, kind: "old", flow: null, cluster: null, message: "old", data: null });
    s.appendEvent({ at: T0 + 30 * DAY, kind: "new", flow: null, cluster: null, message: "new", data: null });
    s.prune(T0 + 30 * DAY + SECOND);
    expect(s.readCheckpointHistory(FLOW, "billing", "orders", 0, 10)).toEqual([checkpoint(2n, T0 + 30 * DAY)]);
    expect(s.listEvents(0, T0 + 31 * DAY, 10).map((e) => e.kind)).toEqual(["new"]);
  });
});

describe("alerts", () => {
  it("stores whole alert records and returns them most recently seen first", () => {
    const s = open();
    const older = makeAlert({ id: "a-1", key: "k1", lastSeen: T0 });
    const newer = makeAlert({ id: "a-2", key: "k2", lastSeen: T0 + MINUTE, flow: null });
    s.saveAlerts([older, newer]);
    expect(s.loadAlerts<TestAlert>()).toEqual([newer, older]);
  });

  it("updates an alert saved again under the same id instead of duplicating it", () => {
    const s = open();
    s.saveAlerts([makeAlert()]);
    const resolved = makeAlert({ state: "resolved", severity: "info", lastSeen: T0 + 5 * MINUTE, summary: "lag is back to 0" });
    s.saveAlerts([resolved]);
    expect(s.loadAlerts<TestAlert>()).toEqual([resolved]);
  });

  it("filters by state, type and flow", () => {
    const s = open();
    const lagOpen = makeAlert({ id: "a-1", key: "k1", lastSeen: T0 + 3 });
    const lagResolved = makeAlert({ id: "a-2", key: "k2", state: "resolved", lastSeen: T0 + 2 });
    const taskOpenOtherFlow = makeAlert({ id: "a-3", key: "k3", type: "TASK_FAILED", flow: "west->east", lastSeen: T0 + 1 });
    s.saveAlerts([lagOpen, lagResolved, taskOpenOtherFlow]);
    expect(s.loadAlerts<TestAlert>({ state: "open" }).map((a) => a.id)).toEqual(["a-1", "a-3"]);
    expect(s.loadAlerts<TestAlert>({ type: "REPLICATION_LAG" }).map((a) => a.id)).toEqual(["a-1", "a-2"]);
    expect(s.loadAlerts<TestAlert>({ flow: "west->east" }).map((a) => a.id)).toEqual(["a-3"]);
    expect(s.loadAlerts<TestAlert>({ state: "open", type: "TASK_FAILED", flow: FLOW })).toEqual([]);
  });
});

describe("events", () => {
  it("lists events within [from, to] newest first, up to the limit, with their data parsed", () => {
    const s = open();
    s.appendEvent({ at: T0, kind: "collector-started", flow: null, cluster: null, message: "started", data: undefined });
    s.appendEvent({ at: T0 + SECOND, kind: "topic-reset", flow: FLOW, cluster: "east", message: "orders was recreated", data: { topic: "orders", before: "1000" } });
    s.appendEvent({ at: T0 + 2 * SECOND, kind: "later", flow: null, cluster: null, message: "later", data: [1, 2] });
    expect(s.listEvents(T0, T0 + SECOND, 10)).toEqual([
      { id: 2, at: T0 + SECOND, kind: "topic-reset", flow: FLOW, cluster: "east", message: "orders was recreated", data: { topic: "orders", before: "1000" } },
      { id: 1, at: T0, kind: "collector-started", flow: null, cluster: null, message: "started", data: null },
    ]);
    expect(s.listEvents(T0, T0 + 2 * SECOND, 1).map((e) => e.kind)).toEqual(["later"]);
  });
});

describe("key-value settings", () => {
  it("returns null for a missing name and the latest value after writes", () => {
    const s = open();
    expect(s.getValue("admin-token")).toBeNull();
    s.setValue("admin-token", "one");
    s.setValue("admin-token", "two");
    s.setValue("other", "x");
    expect([s.getValue("admin-token"), s.getValue("other")]).toEqual(["two", "x"]);
  });
});
