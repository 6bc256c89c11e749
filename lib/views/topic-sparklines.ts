import type { Flow, Snapshot } from "@/lib/collector/types";
import type { Store } from "@/lib/store";
import { readFlowTopicRows } from "./flow-lists";

/** One point of a topic's lag sparkline: the start of its bucket and the topic's largest lag in it. */
export interface SparkPoint {
  at: number;
  lag: number;
}

/** A sparkline is 128 px wide: at most 60 points whatever the range (per minute up to 1 h, then max per bucket). */
export const maxSparkPoints = 60;
const minuteMs = 60_000;

/** The bucket of a range: one minute up to 1 h; beyond, whole minutes so that the range holds at most 60 buckets. */
export function sparkBucketMs(rangeMs: number): number {
  return Math.max(1, Math.ceil(rangeMs / minuteMs / maxSparkPoints)) * minuteMs;
}

/**
 * The sparklines of one flow and range, kept between cycles. The store holds one row per partition and minute (the
 * minute's last sample); the topic's lag at a minute is their sum (`readTopicLagSeries`). Summing every partition's
 * minutes of the range per request costs seconds at 10,000 partitions, so it is read once; after that each new cycle
 * adds its own per-topic lag (equal to the store's sum for the newest minute: the pipeline writes the cycle's samples
 * before it publishes the cycle), and only a cycle this process did not see makes it read the store again, from the
 * newest minute it knew.
 */
interface SparkState {
  bucketMs: number;
  rangeMs: number;
  /** The cycle merged last (its number and time: holding its snapshot would keep 10,000s of partitions alive). */
  cycle: number;
  takenAt: number;
  /** Bucket start → topic → largest lag over the bucket's minutes that are over. */
  settled: Map<number, Map<string, number>>;
  /** The newest minute: its value is the last cycle's, and a later cycle in the same minute replaces it. */
  open: { minute: number; lags: Map<string, number> };
  shaped: Map<string, SparkPoint[]> | null;
}

/** Per flow and range key; a few entries (flows × 5 ranges), each at most topics × 60 numbers. */
const states = new Map<string, SparkState>();
/**
 * The advance in flight per flow, range and cycle: the requests that arrive together (50 connections on a page nobody
 * opened since the server started) wait for one store read instead of each reading every partition's minutes.
 */
const advancing = new Map<string, Promise<SparkState>>();

/** Per-topic lag sparklines of a flow over `rangeMs` up to the snapshot's time, at most 60 points each. */
export async function readTopicSparklines(
  store: Pick<Store, "readTopicLagSeries">,
  snapshot: Snapshot,
  flow: Flow,
  range: { key: string; ms: number },
): Promise<ReadonlyMap<string, SparkPoint[]>> {
  const key = `${flow.id}\u0000${range.key}`;
  let state = states.get(key);
  if (state?.cycle !== snapshot.cycle || state.takenAt !== snapshot.takenAt) {
    const step = `${key}\u0000${snapshot.cycle}\u0000${snapshot.takenAt}`;
    let pending = advancing.get(step);
    if (!pending) {
      pending = advance(store, state, snapshot, flow, range.ms).finally(() => advancing.delete(step));
      advancing.set(step, pending);
    }
    state = await pending;
    states.set(key, state);
  }
  state.shaped ??= shape(state, snapshot.takenAt - state.rangeMs);
  return state.shaped;
}

async function advance(store: Pick<Store, "readTopicLagSeries">, state: SparkState | undefined, snapshot: Snapshot, flow: Flow, rangeMs: number): Promise<SparkState> {
  const to = snapshot.takenAt;
  const from = to - rangeMs;
  const minute = floorTo(to, minuteMs);
  const lags = new Map(readFlowTopicRows(snapshot, flow).map((t) => [t.topic, Number(t.lag)]));
  const bucketMs = sparkBucketMs(rangeMs);
  const next = (settled: Map<number, Map<string, number>>): SparkState => ({ bucketMs, rangeMs, cycle: snapshot.cycle, takenAt: to, settled, open: { minute, lags }, shaped: null });
  // The next cycle (or the same cycle again, from another copy of its snapshot): nothing was missed.
  const step = state ? snapshot.cycle - state.cycle : -1;
  if (state && (step === 0 || step === 1) && to >= state.takenAt) {
    if (minute > state.open.minute) for (const [topic, lag] of state.open.lags) settle(state.settled, bucketMs, state.open.minute, topic, lag);
    return next(dropBefore(state.settled, bucketMs, from));
  }
  // First use, or cycles this process did not see: read the minutes it may not know from the store.
  const known = state && step > 0 && state.open.minute >= from ? state : undefined;
  const settled = known ? dropBefore(known.settled, bucketMs, from) : new Map<number, Map<string, number>>();
  for (const p of await store.readTopicLagSeries(flow.id, known ? known.open.minute : from, to)) {
    // The newest minute is this cycle's own lags (the store's rows of it hold the same values).
    if (p.at < minute) settle(settled, bucketMs, p.at, p.topic, Number(p.lag));
  }
  return next(settled);
}

/** Folds a topic's lag in a finished minute into the minute's bucket (the largest lag per topic). */
function settle(settled: Map<number, Map<string, number>>, bucketMs: number, minute: number, topic: string, lag: number): void {
  const start = floorTo(minute, bucketMs);
  let bucket = settled.get(start);
  if (!bucket) settled.set(start, (bucket = new Map()));
  bucket.set(topic, Math.max(bucket.get(topic) ?? lag, lag));
}

/**
 * Whether a bucket is in the range: its last minute starts at or after `from` (one-minute buckets: the minutes the
 * store's `minute >= from` returns; a longer bucket the range starts in is kept whole).
 */
const inRange = (start: number, bucketMs: number, from: number) => start + bucketMs - minuteMs >= from;

function dropBefore(settled: Map<number, Map<string, number>>, bucketMs: number, from: number): Map<number, Map<string, number>> {
  for (const start of settled.keys()) if (!inRange(start, bucketMs, from)) settled.delete(start);
  return settled;
}

function shape(state: SparkState, from: number): Map<string, SparkPoint[]> {
  const byTopic = new Map<string, SparkPoint[]>();
  const push = (topic: string, at: number, lag: number) => {
    const list = byTopic.get(topic);
    if (list) list.push({ at, lag });
    else byTopic.set(topic, [{ at, lag }]);
  };
  const openStart = floorTo(state.open.minute, state.bucketMs);
  const starts = [...state.settled.keys()].filter((s) => inRange(s, state.bucketMs, from) && s !== openStart).sort((a, b) => a - b);
  for (const start of starts) for (const [topic, lag] of state.settled.get(start)!) push(topic, start, lag);
  // The open minute's bucket: its settled minutes and the open minute together.
  const openBucket = state.settled.get(openStart);
  const topics = new Set([...(openBucket?.keys() ?? []), ...state.open.lags.keys()]);
  for (const topic of topics) push(topic, openStart, Math.max(openBucket?.get(topic) ?? 0, state.open.lags.get(topic) ?? 0));
  return byTopic;
}

const floorTo = (at: number, step: number) => Math.floor(at / step) * step;
