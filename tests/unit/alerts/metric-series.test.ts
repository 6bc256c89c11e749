import { describe, expect, it } from "vitest";
import { defaultMetricsOptions, type MetricsOptions, readMetricsOptions, selectSeries } from "@/lib/alerts/metric-series";
import { renderSelectionText } from "@/lib/alerts/metric-text";
import { createMetrics } from "@/lib/alerts/metrics";
import type { FlowPartition } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { makeFlow, makeFlowPartition, makeSnapshot } from "../detect/fixtures";
import { makeAlert } from "./helpers";

/** Cycle 7: taken at T0 + 60 s. */
const cycle = 7;
const takenAt = makeSnapshot({ cycle }).takenAt;

/** A partition `behind` records short of a log end of 20,000, its oldest waiting record `ageMs` old (null: not read). */
function lagging(topic: string, partition: number, behind: bigint, ageMs: number | null, overrides: Partial<FlowPartition> = {}): FlowPartition {
  return makeFlowPartition({
    topic,
    partition,
    targetTopic: `east.${topic}`,
    sourceLogEnd: 20_000n,
    mm2Position: 20_000n - behind,
    targetLogEnd: 20_000n - behind,
    oldestUnreplicatedTimestamp: ageMs === null ? null : takenAt - ageMs,
    ...overrides,
  });
}

/**
 * east->west in the collector's order (by topic, then partition), with the default thresholds (10,000 records, 300 s):
 * - audit: 0 is caught up, 1 has 7 waiting whose age could not be read;
 * - clicks: 0 has 5 waiting (1 s), 1 is caught up but under-replicated on west, 2 has no MM2 position yet;
 * - orders: 0 lags 15,000 records (42 s), 1 is caught up, 2 lags by age (300 records, 400 s), 3 is unknown (west's ListOffsets failed);
 * - payments: 0 has 20 waiting (2 s) and a DATA_LOSS alert, 1 lags 12,000 records of unknown age, 2 is caught up.
 */
function makeEstate(overrides: { orders0Behind?: bigint } = {}): FlowPartition[] {
  return [
    lagging("audit", 0, 0n, null),
    lagging("audit", 1, 7n, null),
    lagging("clicks", 0, 5n, 1_000),
    lagging("clicks", 1, 0n, null),
    lagging("clicks", 2, 0n, null, { mm2Position: null, committedPosition: null, targetLogEnd: null }),
    lagging("orders", 0, overrides.orders0Behind ?? 15_000n, 42_000),
    lagging("orders", 1, 0n, null),
    lagging("orders", 2, 300n, 400_000),
    lagging("orders", 3, 50n, 10_000, { unknown: { reason: "west east.orders/3: ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: takenAt - 10_000 } }),
    lagging("payments", 0, 20n, 2_000),
    lagging("payments", 1, 12_000n, null),
    lagging("payments", 2, 0n, null),
  ];
}

/** Open: DATA_LOSS on payments/0, UNDER_REPLICATED of east.clicks/1 at west (a cluster finding); resolved: a loss on orders/1. */
const alerts = [
  makeAlert({ id: "loss-payments", key: "DATA_LOSS|east->west|payments|0|100", topic: "payments", partition: 0 }),
  makeAlert({ id: "urp", key: "UNDER_REPLICATED|west|east.clicks", type: "UNDER_REPLICATED", severity: "warning", flow: null, cluster: "west", topic: "east.clicks", partition: 1, evidence: {} }),
  makeAlert({ id: "loss-orders", key: "DATA_LOSS|east->west|orders|1|50", topic: "orders", partition: 1, state: "resolved", resolvedAt: takenAt - 5_000 }),
];

const clicksListed: MetricsOptions = { ...defaultMetricsOptions, partitionSeriesTopics: [/^(?:click.*)$/] };

/** The lines of one metric family with labels, in the registry's order. */
function linesOf(text: string, family: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(`${family}{`));
}

async function render(partitions: FlowPartition[], open = alerts, options = clicksListed, metrics = createMetrics(takenAt)): Promise<string> {
  metrics.updateMetrics(makeSnapshot({ cycle, flows: [makeFlow({ partitions })] }), open, [], options);
  return metrics.renderMetrics();
}

describe("topic and partition series", () => {
  it("gives every topic its figures, and series of their own only to alerted, lagging and allow-listed partitions", async () => {
    const text = await render(makeEstate());
    expect(linesOf(text, "gapwatch_flow_topic_lag_records")).toEqual([
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="audit"} 7',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="clicks"} 5',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="orders"} 15300',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="payments"} 12020',
    ]);
    // payments: 2 s is a lower bound (payments/1's age is unknown); audit: a 0 would hide audit/1, so no figure.
    expect(linesOf(text, "gapwatch_flow_topic_lag_seconds")).toEqual([
      'gapwatch_flow_topic_lag_seconds{flow="east->west",topic="clicks"} 1',
      'gapwatch_flow_topic_lag_seconds{flow="east->west",topic="orders"} 400',
      'gapwatch_flow_topic_lag_seconds{flow="east->west",topic="payments"} 2',
    ]);
    expect(linesOf(text, "gapwatch_flow_topic_unknown_partitions")).toEqual(['gapwatch_flow_topic_unknown_partitions{flow="east->west",topic="orders"} 1']);
    expect(linesOf(text, "gapwatch_flow_partition_lag_records")).toEqual([
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="clicks",partition="0"} 5',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="clicks",partition="1"} 0',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="0"} 15000',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="2"} 300',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="payments",partition="0"} 20',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="payments",partition="1"} 12000',
    ]);
    expect(linesOf(text, "gapwatch_flow_partition_lag_seconds")).toEqual([
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="clicks",partition="0"} 1',
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="clicks",partition="1"} 0',
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="orders",partition="0"} 42',
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="orders",partition="2"} 400',
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="payments",partition="0"} 2',
    ]);
    expect(linesOf(text, "gapwatch_flow_partition_series_omitted")).toEqual(['gapwatch_flow_partition_series_omitted{flow="east->west"} 0']);
    expect(linesOf(text, "gapwatch_flow_topic_series_omitted")).toEqual(['gapwatch_flow_topic_series_omitted{flow="east->west"} 0']);
    // The flow's oldest waiting record: orders/2's, 400 s; its lag counts every partition with a figure (the unknown orders/3 too, as before).
    expect(linesOf(text, "gapwatch_flow_lag_seconds")).toEqual(['gapwatch_flow_lag_seconds{flow="east->west"} 400']);
    expect(text).toContain('gapwatch_flow_lag_records{flow="east->west"} 27382');
    expect(text).toContain('gapwatch_unknown_partitions{flow="east->west"} 1');
  });

  it("keeps the series of topics needing attention first, worst first, then of the largest quiet ones", async () => {
    // Attention: orders (lagging, unknown), payments (lagging, alert), clicks (alert on clicks/1); audit is quiet.
    const two = await render(makeEstate(), alerts, { ...clicksListed, topicSeriesLimit: 2 });
    expect(linesOf(two, "gapwatch_flow_topic_lag_records")).toEqual([
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="orders"} 15300',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="payments"} 12020',
    ]);
    expect(linesOf(two, "gapwatch_flow_topic_series_omitted")).toEqual(['gapwatch_flow_topic_series_omitted{flow="east->west"} 2']);
    // Without alerts clicks is quiet too, and larger than audit (3 partitions to 2).
    const three = await render(makeEstate(), [], { ...defaultMetricsOptions, topicSeriesLimit: 3 });
    expect(linesOf(three, "gapwatch_flow_topic_lag_records")).toEqual([
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="orders"} 15300',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="payments"} 12020',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="clicks"} 5',
    ]);
    expect(linesOf(three, "gapwatch_flow_topic_series_omitted")).toEqual(['gapwatch_flow_topic_series_omitted{flow="east->west"} 1']);
    expect(linesOf(three, "gapwatch_flow_lag_seconds")).toEqual(['gapwatch_flow_lag_seconds{flow="east->west"} 400']);
  });

  it("keeps the worst partitions up to the limit and counts the ones left out", async () => {
    const text = await render(makeEstate(), alerts, { ...clicksListed, partitionSeriesLimit: 3 });
    expect(linesOf(text, "gapwatch_flow_partition_lag_records")).toEqual([
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="payments",partition="0"} 20',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="clicks",partition="1"} 0',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="2"} 300',
    ]);
    expect(linesOf(text, "gapwatch_flow_partition_series_omitted")).toEqual(['gapwatch_flow_partition_series_omitted{flow="east->west"} 3']);
    expect(linesOf(text, "gapwatch_flow_topic_lag_records")).toHaveLength(4);
  });

  it("removes the series of a partition that caught up and of one whose alert resolved", async () => {
    const metrics = createMetrics(takenAt);
    const options = { ...defaultMetricsOptions, partitionSeriesLimit: 2 };
    await render(makeEstate(), alerts, options, metrics);
    const before = await render(makeEstate(), alerts, options, metrics);
    expect(linesOf(before, "gapwatch_flow_partition_series_omitted")).toEqual(['gapwatch_flow_partition_series_omitted{flow="east->west"} 3']);
    // orders/0 caught up to 10 records behind; the DATA_LOSS alert on payments/0 resolved.
    const resolved = alerts.map((a) => (a.id === "loss-payments" ? { ...a, state: "resolved" as const, resolvedAt: takenAt } : a));
    const after = await render(makeEstate({ orders0Behind: 10n }), resolved, options, metrics);
    expect(linesOf(after, "gapwatch_flow_partition_lag_records")).toEqual([
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="clicks",partition="1"} 0',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="2"} 300',
    ]);
    expect(linesOf(after, "gapwatch_flow_partition_lag_seconds")).toEqual([
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="clicks",partition="1"} 0',
      'gapwatch_flow_partition_lag_seconds{flow="east->west",topic="orders",partition="2"} 400',
    ]);
    expect(linesOf(after, "gapwatch_flow_partition_series_omitted")).toEqual(['gapwatch_flow_partition_series_omitted{flow="east->west"} 1']);
    expect(after).toContain('gapwatch_flow_topic_lag_records{flow="east->west",topic="orders"} 310');
  });

  it("gives an unknown partition no series even when an alert names it, and a topic of unknown partitions no figures", async () => {
    const unknown = { reason: "east unreachable: connect ECONNREFUSED", dataAt: takenAt - 30_000 };
    const partitions = [lagging("payments", 0, 20n, 2_000, { unknown }), lagging("payments", 1, 12_000n, 500_000, { unknown })];
    const text = await render(partitions);
    expect(linesOf(text, "gapwatch_flow_partition_lag_records")).toEqual([]);
    expect(linesOf(text, "gapwatch_flow_topic_lag_records")).toEqual([]);
    expect(linesOf(text, "gapwatch_flow_topic_lag_seconds")).toEqual([]);
    expect(linesOf(text, "gapwatch_flow_topic_unknown_partitions")).toEqual(['gapwatch_flow_topic_unknown_partitions{flow="east->west",topic="payments"} 2']);
    expect(text).toContain('gapwatch_unknown_partitions{flow="east->west"} 2');
  });

  it("escapes a label value as the text format requires (an MM2 alias is free text in the connector config)", async () => {
    const metrics = createMetrics(takenAt);
    const flow = makeFlow({ id: 'dc "a"\\1->west', source: 'dc "a"\\1', partitions: [lagging("orders", 0, 15_000n, 42_000)] });
    metrics.updateMetrics(makeSnapshot({ cycle, flows: [flow] }), [], [], defaultMetricsOptions);
    const text = await metrics.renderMetrics();
    expect(linesOf(text, "gapwatch_flow_topic_lag_records")).toEqual(['gapwatch_flow_topic_lag_records{flow="dc \\"a\\"\\\\1->west",topic="orders"} 15000']);
    expect(linesOf(text, "gapwatch_flow_partition_lag_seconds")).toEqual(['gapwatch_flow_partition_lag_seconds{flow="dc \\"a\\"\\\\1->west",topic="orders",partition="0"} 42']);
  });
});

/** A small deterministic generator (mulberry32): the same estates every run. */
function createRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** A random estate in the collector's order: lags from none to past the thresholds, ages unknown or old, unknown partitions. */
function makeRandomEstate(random: (n: number) => number): FlowPartition[] {
  const partitions: FlowPartition[] = [];
  const topics = ["audit", "clicks", "orders", "payments", "refunds", "users"].filter(() => random(4) > 0);
  for (const topic of topics) {
    const count = 1 + random(6);
    for (let partition = 0; partition < count; partition++) {
      const behind = [0n, 3n, 400n, 10_000n, 25_000n][random(5)]!;
      const age = [null, 0, 5_000, 299_000, 900_000][random(5)]!;
      const unknown = random(8) === 0 ? { reason: "west ListOffsets failed", dataAt: takenAt - 5_000 } : null;
      const noPosition = random(10) === 0 ? { mm2Position: null, committedPosition: null, targetLogEnd: null } : {};
      partitions.push(lagging(topic, partition, behind, age, { unknown, ...noPosition }));
    }
  }
  return partitions;
}

describe("series selection from the flow's columns", () => {
  it("answers as from the partitions' objects: the same figures, series and text over 200 random estates", () => {
    const random = createRandom(32);
    for (let round = 0; round < 200; round++) {
      const partitions = makeRandomEstate(random);
      // An offset beyond 2^53 leaves the flow without columns: its partitions' objects are read instead.
      const objects = partitions.map((p, i) => (i === 0 ? { ...p, targetLogStart: 2n ** 60n } : p));
      const open = partitions.filter(() => random(6) === 0).map((p, i) => makeAlert({ id: `a${i}`, topic: p.topic, partition: p.partition }));
      const options: MetricsOptions = {
        ...defaultMetricsOptions,
        topicSeriesLimit: 1 + random(6),
        partitionSeriesLimit: 1 + random(12),
        partitionSeriesTopics: random(2) === 0 ? [] : [/^(?:o.*)$/],
      };
      const fromColumns = selectSeries(makeSnapshot({ cycle, flows: [makeFlow({ partitions })] }), open, [], options);
      const fromObjects = selectSeries(makeSnapshot({ cycle, flows: [makeFlow({ partitions: objects })] }), open, [], options);
      expect(fromColumns).toEqual(fromObjects);
      expect(renderSelectionText(fromColumns)).toBe(renderSelectionText(fromObjects));
    }
  });
});

describe("readMetricsOptions", () => {
  const clusters = [{ alias: "east", bootstrap: "k:9092" }];

  it("takes the limit and the lag thresholds from the config and matches allow-listed topics whole", async () => {
    const config = configSchema.parse({ clusters, thresholds: { lagRecords: 15_000, lagSeconds: 30 }, metrics: { partitionSeriesLimit: 50, partitionSeriesTopics: ["click", "pay.*"] } });
    const options = readMetricsOptions(config);
    expect({ limit: options.partitionSeriesLimit, lagRecords: options.lagRecords, lagSeconds: options.lagSeconds }).toEqual({ limit: 50, lagRecords: 15_000n, lagSeconds: 30 });
    const text = await render(makeEstate(), [], options);
    // orders/0 (15,000 records) and orders/2 (400 s) lag; "pay.*" takes payments; "click" does not match "clicks".
    expect(linesOf(text, "gapwatch_flow_partition_lag_records")).toEqual([
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="0"} 15000',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="2"} 300',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="payments",partition="0"} 20',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="payments",partition="1"} 12000',
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="payments",partition="2"} 0',
    ]);
  });

  it("refuses a regex that does not compile, and a negative limit", () => {
    const result = configSchema.safeParse({ clusters, metrics: { partitionSeriesLimit: -1, partitionSeriesTopics: ["orders(" ] } });
    expect(result.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
      "metrics.partitionSeriesLimit: Too small: expected number to be >=0",
      "metrics.partitionSeriesTopics.0: must be a valid regular expression",
    ]);
  });
});
