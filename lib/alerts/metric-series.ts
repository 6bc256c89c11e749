/**
 * What the Prometheus metrics say about flows, topics and partitions each cycle. One series per
 * partition is 100,000 series per family at 100,000 partitions (a 10 MB scrape), so, as
 * kafka-lag-exporter's allow-lists do: per-flow figures over every partition; per-topic series,
 * capped, topics that need attention first; per-partition series only where an operator looks —
 * partitions that lag past the REPLICATION_LAG thresholds, that an open alert or risk names, or whose
 * topic is allow-listed — capped, worst first. What a cap leaves out is counted per flow.
 * One pass over the partitions, no sort of all topics: this runs every cycle at 100,000 partitions. Lags are read
 * from the flow's lag column (numbers, lib/collector/flow-columns.ts), not from the partitions' bigints.
 */
import type { Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import type { GapwatchConfig } from "@/lib/config";
import { defaultMetricsLimits } from "@/lib/config/schema";
import { defaultThresholds } from "@/lib/config/thresholds";
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readOldestUnreplicatedTimestamp, readPartitionNumber, readPartitionTopic } from "@/lib/collector/flow-rows";
import { readPositionColumns } from "@/lib/store/position-columns";
import { AlertState, type AlertRecord, type RiskRecord } from "./types";

/** Which topics and partitions get series (config `metrics` and the lag thresholds). */
export interface MetricsOptions {
  /** Most topics with series of their own. */
  topicSeriesLimit: number;
  /** Most partitions with series of their own; the worst are kept. */
  partitionSeriesLimit: number;
  /** Topics whose partitions get series even when they do not lag (whole-name matches). */
  partitionSeriesTopics: readonly RegExp[];
  /** A partition lags at or above this many records (thresholds.lagRecords)… */
  lagRecords: bigint;
  /** …or when its oldest record not yet copied is this old (thresholds.lagSeconds). */
  lagSeconds: number;
}

/** Without a config: the schema's defaults. */
export const defaultMetricsOptions: MetricsOptions = {
  ...defaultMetricsLimits,
  partitionSeriesTopics: [],
  lagRecords: BigInt(defaultThresholds.lagRecords),
  lagSeconds: defaultThresholds.lagSeconds,
};

/** The metrics options of a config (regexes compiled once, anchored as MM2 anchors its topic filters). */
export function readMetricsOptions(config: GapwatchConfig): MetricsOptions {
  return {
    topicSeriesLimit: config.metrics.topicSeriesLimit,
    partitionSeriesLimit: config.metrics.partitionSeriesLimit,
    partitionSeriesTopics: config.metrics.partitionSeriesTopics.map((source) => new RegExp(`^(?:${source})$`)),
    lagRecords: BigInt(config.thresholds.lagRecords),
    lagSeconds: config.thresholds.lagSeconds,
  };
}

/** One flow's figures over all its partitions, and what the caps left out of it. */
export interface FlowFigures {
  flow: string;
  /** Age of the oldest record not yet copied, over partitions whose age is known (see TopicFigures). */
  lagSeconds: number | null;
  unknownPartitions: number;
  omittedTopics: number;
  omittedPartitions: number;
}

/** One flow topic's figures over its partitions that are known (read this cycle, with a position). */
export interface TopicFigures {
  flow: string;
  topic: string;
  /** Sum of the known partitions' lag (a float, as Prometheus holds it); null when no partition's lag is known. */
  lagRecords: number | null;
  /**
   * Age of the oldest record not yet copied among partitions whose age is known (0 for a caught-up
   * partition); null when none is, or when it would be 0 beside a lagging partition of unknown age.
   */
  lagSeconds: number | null;
  /** Partitions whose data could not be read this cycle (partition-unknown.ts). */
  unknownPartitions: number;
}

/** One partition that gets its own series. */
export interface PartitionFigures {
  flow: string;
  topic: string;
  partition: number;
  /** Exact below 2^53 (an offset column's range); a lag beyond it is rounded, as Prometheus holds it anyway. */
  lagRecords: number;
  /** Null when it lags and its oldest waiting record could not be read. */
  lagSeconds: number | null;
}

/** This cycle's series: every flow, the chosen topics and partitions. */
export interface SeriesSelection {
  flows: FlowFigures[];
  topics: TopicFigures[];
  partitions: PartitionFigures[];
}

/** Why a partition qualifies, best first: named by an open alert or risk, lagging, allow-listed. */
const Reason = { NAMED: 0, LAGGING: 1, LISTED: 2 } as const;

interface Candidate extends PartitionFigures {
  reason: number;
}

/** A topic's figures while its partitions are added: numbers only (no nulls), so V8 updates them in place. */
interface TopicAccumulator {
  flow: string;
  topic: string;
  partitions: number;
  unknownPartitions: number;
  /** Partitions with a lag figure, the sum of their lag, and the oldest known age (−1: none known yet). */
  knownPartitions: number;
  lagSum: number;
  maxAge: number;
  /** A partition lags with an unknown age: a maximum of 0 over the others would hide it. */
  ageMissing: boolean;
  /** A partition lags past a threshold, is named by an open alert or risk, or is unknown. */
  attention: boolean;
  /** Partitions named by open alerts or risks; null when none. */
  named: ReadonlySet<number> | null;
  listed: boolean;
}

/** Partitions named by open alerts or risks, per flow and per cluster, then per topic. */
interface NamedIndex {
  byFlow: Map<string, Map<string, Set<number>>>;
  byCluster: Map<string, Map<string, Set<number>>>;
}

/**
 * Computes every flow's and topic's figures and picks the topics and partitions that get series (at
 * most the limits; the caps apply across flows, since they bound one scrape).
 */
export function selectSeries(
  snapshot: Snapshot,
  alerts: readonly AlertRecord[],
  risks: readonly RiskRecord[],
  options: MetricsOptions,
): SeriesSelection {
  const named = indexNamedPartitions(alerts, risks);
  const flows = new Map<string, FlowFigures>();
  const topics: TopicAccumulator[] = [];
  const candidates: Candidate[] = [];
  for (const flow of snapshot.flows) {
    const flowTopics = accumulateFlow(flow, snapshot.takenAt, named, options, candidates);
    flows.set(flow.id, summarizeFlow(flow.id, flowTopics));
    for (const t of flowTopics) topics.push(t);
  }
  const keptTopics = chooseTopics(topics, options.topicSeriesLimit);
  // Each flow's topics less those kept (no set of every topic).
  for (const t of topics) flows.get(t.flow)!.omittedTopics += 1;
  for (const t of keptTopics) flows.get(t.flow)!.omittedTopics -= 1;
  if (candidates.length > options.partitionSeriesLimit) candidates.sort(compareCandidates);
  for (const c of candidates.slice(options.partitionSeriesLimit)) flows.get(c.flow)!.omittedPartitions += 1;
  return {
    flows: [...flows.values()],
    topics: keptTopics.map(finishTopic),
    partitions: candidates
      .slice(0, options.partitionSeriesLimit)
      .map(({ flow, topic, partition, lagRecords, lagSeconds }) => ({ flow, topic, partition, lagRecords, lagSeconds })),
  };
}

/**
 * One pass over a flow's partitions (collector order: by topic, then partition), run of one topic by run: its topics'
 * figures, and the partitions that qualify. Whether a partition is known and its lag are read from the flow's columns;
 * its object only when records wait (their age) or it qualifies.
 */
function accumulateFlow(flow: Flow, now: number, named: NamedIndex, options: MetricsOptions, candidates: Candidate[]): TopicAccumulator[] {
  const byTopic = new Map<string, TopicAccumulator>();
  const namedSets = [named.byFlow.get(flow.id), named.byCluster.get(flow.source), named.byCluster.get(flow.target)] as const;
  const numbers = readLagNumbers(flow);
  const lagRecords = Number(options.lagRecords);
  const count = countFlowPartitions(flow);
  const runs = numbers.runStarts;
  for (let r = 0; r < runs.length; r++) {
    const first = readPartitionTopic(flow, runs[r]!);
    let acc = byTopic.get(first.topic);
    if (acc === undefined) byTopic.set(first.topic, (acc = startTopic(flow.id, first, namedSets, options)));
    const end = r + 1 < runs.length ? runs[r + 1]! : count;
    for (let i = runs[r]!; i < end; i++) {
      const candidate = addPartition(acc, flow, i, numbers, now, lagRecords, options.lagSeconds);
      if (candidate !== null) candidates.push(candidate);
    }
  }
  return [...byTopic.values()];
}

/**
 * A flow's lags (NaN: unknown) and whether a partition's data is known, from its columns by slot (`slotAt` set) or,
 * where the columns cannot say, by position from its partitions; and where its topics' runs start.
 */
interface LagNumbers {
  lag: Float64Array;
  /** Per position, its slot in `lag` and `knownPositionOf`; null: `lag` is by position, `unknown` read from the object. */
  slotAt: Int32Array | null;
  knownPositionOf: Int32Array | null;
  runStarts: Int32Array;
}

/**
 * The flow's columns by slot, or its lags by position and its partitions' objects where the columns cannot say: a
 * flow with an offset beyond 2^53 (no columns: its lags as numbers, rounded as Prometheus holds them) or listing a
 * partition twice.
 */
function readLagNumbers(flow: Flow): LagNumbers {
  if (readPositionColumns(flow, []) === null) {
    const { partitions } = flow;
    // An offset beyond 2^53: no columns. Its lags as numbers (rounded, as Prometheus holds them).
    const lag = Float64Array.from(partitions, (p) => (p.lag === null ? Number.NaN : Number(p.lag)));
    return { lag, slotAt: null, knownPositionOf: null, runStarts: listRunStarts(partitions) };
  }
  const columns = readFlowColumns(flow);
  if (columns.duplicates) {
    const lags = readPositionColumns(flow, ["lag"])![0]!;
    return { lag: lags, slotAt: null, knownPositionOf: null, runStarts: columns.topicRunStarts };
  }
  return { lag: columns.lag, slotAt: columns.slotAt, knownPositionOf: columns.knownPositionOf, runStarts: columns.topicRunStarts };
}

/** Where each run of one topic starts (topicRunStarts of flow-columns.ts, for a flow without columns). */
function listRunStarts(partitions: readonly FlowPartition[]): Int32Array {
  const starts: number[] = [];
  for (let i = 0; i < partitions.length; i++) if (i === 0 || partitions[i]!.topic !== partitions[i - 1]!.topic) starts.push(i);
  return Int32Array.from(starts);
}

/**
 * Partitions named by firing alerts and by risks: by flow and topic, or — for findings about a
 * cluster (UNDER_REPLICATED, OFFLINE, …) — by cluster and topic, which names a flow partition when it
 * is its source topic on the source cluster or its remote topic on the target.
 */
function indexNamedPartitions(alerts: readonly AlertRecord[], risks: readonly RiskRecord[]): NamedIndex {
  const index: NamedIndex = { byFlow: new Map(), byCluster: new Map() };
  const add = (outer: Map<string, Map<string, Set<number>>>, key: string, topic: string, partition: number) => {
    const inner = outer.get(key) ?? new Map<string, Set<number>>();
    outer.set(key, inner);
    const set = inner.get(topic) ?? new Set<number>();
    inner.set(topic, set);
    set.add(partition);
  };
  const firing = alerts.filter((a) => a.state === AlertState.FIRING);
  const open: readonly Pick<RiskRecord, "flow" | "cluster" | "topic" | "partition">[] = [...firing, ...risks];
  for (const { flow, cluster, topic, partition } of open) {
    if (topic === null || partition === null) continue;
    if (flow !== null) add(index.byFlow, flow, topic, partition);
    else if (cluster !== null) add(index.byCluster, cluster, topic, partition);
  }
  return index;
}

type NamedByTopic = Map<string, Set<number>> | undefined;
/** A flow's named partitions: by the flow, at its source cluster, at its target cluster. */
type NamedSets = readonly [NamedByTopic, NamedByTopic, NamedByTopic];

function startTopic(flow: string, first: Pick<FlowPartition, "topic" | "targetTopic">, namedSets: NamedSets, options: MetricsOptions): TopicAccumulator {
  return {
    flow,
    topic: first.topic,
    partitions: 0,
    unknownPartitions: 0,
    knownPartitions: 0,
    lagSum: 0,
    maxAge: -1,
    ageMissing: false,
    attention: false,
    named: findNamedPartitions(first, namedSets),
    listed: options.partitionSeriesTopics.length > 0 && options.partitionSeriesTopics.some((re) => re.test(first.topic)),
  };
}

/** The partitions of `first`'s topic that open alerts or risks name, or null (the usual case: no lookup at all). */
function findNamedPartitions(first: Pick<FlowPartition, "topic" | "targetTopic">, [byFlow, atSource, atTarget]: NamedSets): ReadonlySet<number> | null {
  if (byFlow === undefined && atSource === undefined && atTarget === undefined) return null;
  const sets = [byFlow?.get(first.topic), atSource?.get(first.topic), atTarget?.get(first.targetTopic)]
    .filter((s): s is Set<number> => s !== undefined);
  return sets.length === 0 ? null : sets.length === 1 ? sets[0]! : new Set(sets.flatMap((s) => [...s]));
}

/**
 * Adds the partition at position `i` to its topic's figures; returns it when it qualifies for series of its own. Its
 * age is read only when records wait, its number only when the topic has named or allow-listed partitions.
 */
function addPartition(
  acc: TopicAccumulator,
  flow: Flow,
  i: number,
  numbers: LagNumbers,
  now: number,
  lagRecords: number,
  lagSeconds: number,
): Candidate | null {
  acc.partitions += 1;
  const { slotAt, knownPositionOf } = numbers;
  const slot = slotAt === null ? i : slotAt[i]!;
  // Unknown data is not healthy: an unknown partition adds nothing but its count, and gets no series.
  if (knownPositionOf === null ? flow.partitions[i]!.unknown !== null : knownPositionOf[slot] !== i) {
    acc.unknownPartitions += 1;
    acc.attention = true;
    return null;
  }
  const lag = numbers.lag[slot]!;
  if (Number.isNaN(lag)) return null;
  acc.knownPartitions += 1;
  // Age in seconds of the oldest record waiting; −1 when records wait and the oldest could not be read.
  let age = 0;
  if (lag > 0) {
    acc.lagSum += lag;
    const oldest = readOldestUnreplicatedTimestamp(flow, i);
    age = oldest === null ? -1 : Math.max(0, now - oldest) / 1000;
  }
  if (age < 0) acc.ageMissing = true;
  else if (age > acc.maxAge) acc.maxAge = age;
  const lagging = lag >= lagRecords || age >= lagSeconds;
  if (!lagging && acc.named === null && !acc.listed) return null;
  const partition = readPartitionNumber(flow, i);
  const isNamed = acc.named !== null && acc.named.has(partition);
  if (!isNamed && !lagging && !acc.listed) return null;
  if (isNamed || lagging) acc.attention = true;
  const reason = isNamed ? Reason.NAMED : lagging ? Reason.LAGGING : Reason.LISTED;
  return { flow: acc.flow, topic: readPartitionTopic(flow, i).topic, partition, lagRecords: lag, lagSeconds: age < 0 ? null : age, reason };
}

/** A maximum age of 0 beside a lagging partition of unknown age would say "nothing waits": no figure instead. */
function honestMaxAge(age: number | null, ageMissing: boolean): number | null {
  return ageMissing && age === 0 ? null : age;
}

function finishTopic(acc: TopicAccumulator): TopicFigures {
  return {
    flow: acc.flow,
    topic: acc.topic,
    lagRecords: acc.knownPartitions === 0 ? null : acc.lagSum,
    lagSeconds: honestMaxAge(acc.maxAge < 0 ? null : acc.maxAge, acc.ageMissing),
    unknownPartitions: acc.unknownPartitions,
  };
}

function summarizeFlow(flow: string, topics: readonly TopicAccumulator[]): FlowFigures {
  let age = -1;
  let unknown = 0;
  let ageMissing = false;
  for (const t of topics) {
    if (t.maxAge > age) age = t.maxAge;
    unknown += t.unknownPartitions;
    ageMissing ||= t.ageMissing;
  }
  const lagSeconds = honestMaxAge(age < 0 ? null : age, ageMissing);
  return { flow, lagSeconds, unknownPartitions: unknown, omittedTopics: 0, omittedPartitions: 0 };
}

/**
 * At most `limit` topics: those needing attention first, worst first (compareLag); then allow-listed
 * ones, then the rest, each by size (most partitions first) and, among equals, in the flows' order
 * (by topic name) — so which quiet topics keep their series does not change from cycle to cycle with
 * small lag movements (in Prometheus every change is a new series).
 */
function chooseTopics(topics: TopicAccumulator[], limit: number): TopicAccumulator[] {
  if (topics.length <= limit) return topics;
  const attention = topics.filter((t) => t.attention);
  attention.sort((a, b) => compareLag(a.maxAge, a.lagSum, b.maxAge, b.lagSum));
  const kept = attention.slice(0, limit);
  const listed = topics.filter((t) => !t.attention && t.listed);
  kept.push(...takeLargest(listed, limit - kept.length));
  const others = topics.filter((t) => !t.attention && !t.listed);
  kept.push(...takeLargest(others, limit - kept.length));
  return kept;
}

/** The `n` topics with the most partitions, ties in the given order, without sorting them all. */
function takeLargest(topics: readonly TopicAccumulator[], n: number): TopicAccumulator[] {
  if (topics.length <= n) return [...topics];
  const bySize = new Map<number, TopicAccumulator[]>();
  for (const t of topics) {
    const bucket = bySize.get(t.partitions);
    if (bucket === undefined) bySize.set(t.partitions, [t]);
    else bucket.push(t);
  }
  const taken: TopicAccumulator[] = [];
  for (const size of [...bySize.keys()].sort((a, b) => b - a)) {
    for (const t of bySize.get(size)!) {
      if (taken.length === n) return taken;
      taken.push(t);
    }
  }
  return taken;
}

/** Older oldest-record first (unknown age last), then more records behind. */
function compareLag(ageA: number | null, recordsA: number, ageB: number | null, recordsB: number): number {
  if ((ageA ?? -1) !== (ageB ?? -1)) return (ageB ?? -1) - (ageA ?? -1);
  return recordsB - recordsA;
}

/** Worst first: by reason, then by lag (compareLag); then by name. */
function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.reason !== b.reason) return a.reason - b.reason;
  const byLag = compareLag(a.lagSeconds, a.lagRecords, b.lagSeconds, b.lagRecords);
  if (byLag !== 0) return byLag;
  if (a.flow !== b.flow) return a.flow < b.flow ? -1 : 1;
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}
