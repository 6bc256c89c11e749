import type { Flow } from "@/lib/collector/types";
import type { ProgressReading, ProgressSample } from "@/lib/pipeline/progress-window";

/**
 * - `caught-up`: nothing waits to be copied;
 * - `catching-up`: MM2 copies faster than the source grows: the lag shrinks, `etaSeconds` says when it is gone;
 * - `not-catching-up`: records wait and MM2 copies no faster than the source grows (or not at all);
 * - `unknown`: no earlier sample to compare with yet, or the partition was unknown, reset or rewound meanwhile.
 */
export type CatchUpState = "caught-up" | "catching-up" | "not-catching-up" | "unknown";

/** Time to catch up of one partition (offsets per second: markers count on both sides). */
export interface PartitionCatchUp {
  topic: string;
  partition: number;
  state: CatchUpState;
  /** Offsets not yet copied now. */
  lag: bigint | null;
  /** MM2's position advance over the window, per second. */
  replicationRate: number | null;
  /** The source log end's advance over the window, per second. */
  produceRate: number | null;
  /** lag ÷ (replicationRate − produceRate), when that is positive. */
  etaSeconds: number | null;
}

/** The flow: the sums of the partitions' rates and lags; it catches up when its slowest partition does. */
export interface FlowCatchUp {
  flow: string;
  state: CatchUpState;
  /** Seconds between the two samples compared; null before a second sample. */
  windowSeconds: number | null;
  lag: bigint;
  replicationRate: number | null;
  produceRate: number | null;
  /** The slowest catching-up partition's ETA (null unless the whole flow is catching up). */
  etaSeconds: number | null;
  notCatchingUp: number;
  partitions: PartitionCatchUp[];
}

const estimates = new WeakMap<ProgressSample, Map<string, FlowCatchUp>>();

/**
 * Compares this cycle's sample with the window's oldest (ReadModel.progress), once per cycle and flow. With
 * replication rate r and produce rate p over the window, the lag shrinks by r − p a second: the ETA is
 * lag ÷ (r − p) when r > p; when r ≤ p MM2 is not catching up, whatever the lag ÷ r alone would promise.
 */
export function readFlowCatchUp(progress: ProgressReading, flow: Flow): FlowCatchUp {
  let byFlow = estimates.get(progress.current);
  if (!byFlow) estimates.set(progress.current, (byFlow = new Map()));
  const known = byFlow.get(flow.id);
  if (known) return known;
  const estimate = estimateFlow(progress, flow);
  byFlow.set(flow.id, estimate);
  return estimate;
}

/** Per estimate (one per cycle and flow): where each partition's entries are, so a page picks its own without a scan. */
const positionsOf = new WeakMap<FlowCatchUp, Map<string, number[]>>();

/**
 * The flow's time to catch up with only the given partitions' entries, in the estimate's own order (a flow may have
 * 100,000 partitions; a page shows 100).
 */
export function pickCatchUpOf(catchUp: FlowCatchUp, page: readonly { topic: string; partition: number }[]): FlowCatchUp {
  let positions = positionsOf.get(catchUp);
  if (!positions) {
    positions = new Map();
    catchUp.partitions.forEach((p, i) => {
      const key = `${p.topic}\u0000${p.partition}`;
      const known = positions!.get(key);
      if (known) known.push(i);
      else positions!.set(key, [i]);
    });
    positionsOf.set(catchUp, positions);
  }
  const wanted = new Set<number>();
  for (const p of page) for (const i of positions.get(`${p.topic}\u0000${p.partition}`) ?? []) wanted.add(i);
  return { ...catchUp, partitions: [...wanted].sort((a, b) => a - b).map((i) => catchUp.partitions[i]!) };
}

function estimateFlow({ current, reference }: ProgressReading, flow: Flow): FlowCatchUp {
  const now = current.flows.get(flow.id);
  const then = reference?.flows.get(flow.id);
  const seconds = reference === null ? null : (current.at - reference.at) / 1000;
  const comparable = now !== undefined && then !== undefined && seconds !== null && seconds > 0;
  // One object literal a partition, no spread: a flow of 10,000 partitions is estimated on the request that asks first.
  const partitions: PartitionCatchUp[] = flow.partitions.map((p) => {
    const { topic, partition, offsetLag: lag } = p;
    const key = comparable ? `${topic}/${partition}` : "";
    const i = comparable ? now.index.get(key) : undefined;
    const j = comparable ? then.index.get(key) : undefined;
    if (!comparable || i === undefined || j === undefined || !now.known[i] || !then.known[j]) {
      return { topic, partition, lag, state: lag === 0n ? "caught-up" : "unknown", replicationRate: null, produceRate: null, etaSeconds: null };
    }
    const copied = now.positions[i]! - then.positions[j]!;
    const produced = now.logEnds[i]! - then.logEnds[j]!;
    // A position or log end that went back (reset, rewind, topic recreated) says nothing about a rate.
    if (copied < 0n || produced < 0n) return { topic, partition, lag, state: "unknown", replicationRate: null, produceRate: null, etaSeconds: null };
    const replicationRate = Number(copied) / seconds;
    const produceRate = Number(produced) / seconds;
    const { state, etaSeconds } = judge(lag, replicationRate, produceRate);
    return { topic, partition, lag, state, etaSeconds, replicationRate, produceRate };
  });
  return summarize(flow, seconds, partitions);
}

function judge(lag: bigint | null, replicationRate: number, produceRate: number): { state: CatchUpState; etaSeconds: number | null } {
  if (lag === null) return { state: "unknown", etaSeconds: null };
  if (lag === 0n) return { state: "caught-up", etaSeconds: 0 };
  const net = replicationRate - produceRate;
  return net > 0 ? { state: "catching-up", etaSeconds: Number(lag) / net } : { state: "not-catching-up", etaSeconds: null };
}

function summarize(flow: Flow, windowSeconds: number | null, partitions: PartitionCatchUp[]): FlowCatchUp {
  let lag = 0n;
  let replicationRate = 0;
  let produceRate = 0;
  let rated = 0;
  let notCatchingUp = 0;
  let unknown = 0;
  let eta = 0;
  for (const p of partitions) {
    lag += p.lag ?? 0n;
    if (p.replicationRate !== null && p.produceRate !== null) {
      replicationRate += p.replicationRate;
      produceRate += p.produceRate;
      rated++;
    }
    if (p.state === "not-catching-up") notCatchingUp++;
    else if (p.state === "unknown") unknown++;
    else if (p.etaSeconds !== null) eta = Math.max(eta, p.etaSeconds);
  }
  const state: CatchUpState = notCatchingUp > 0 ? "not-catching-up" : unknown > 0 ? "unknown" : lag === 0n ? "caught-up" : "catching-up";
  return {
    flow: flow.id,
    state,
    windowSeconds,
    lag,
    replicationRate: rated === 0 ? null : replicationRate,
    produceRate: rated === 0 ? null : produceRate,
    etaSeconds: state === "catching-up" || state === "caught-up" ? eta : null,
    notCatchingUp,
    partitions,
  };
}
