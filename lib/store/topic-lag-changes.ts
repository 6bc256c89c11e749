/**
 * Which topics' total lag changed since last written (topic_hours, series.ts), compared as numbers per topic: a flow's
 * topics get a stable index (in the order first seen), the sums are made over the flow's topic runs from its lag column
 * by slot (FlowColumns.topicRunStarts), and only a changed topic's sum becomes a bigint. At 100,000 partitions on
 * 18,000 topics this makes no map entry or bigint per unchanged topic. A sum past 2^53 (numbers stop being exact), or
 * a flow without columns (an offset beyond 2^53) or listing a partition twice, is summed as bigints (sumLagPerTopic).
 */
import type { FlowColumns } from "@/lib/collector/flow-columns";
import { readPartitionTopic } from "@/lib/collector/flow-rows";
import type { Flow } from "@/lib/collector/types";
import { readExactColumns } from "./position-columns";

/** A topic whose total lag changed: [flow, topic, lag]. */
export type TopicLagChange = [flow: string, topic: string, lag: bigint];

/** One flow's topics and the lag last written per topic index. */
interface FlowTopics {
  index: Map<string, number>;
  topics: string[];
  /** Per topic index: the lag last written as a number (NaN: never written, or beyond 2^53: in `big`). */
  written: Float64Array;
  big: Map<number, bigint>;
  /** The topic index of each run of the columns `runsOf` was read from (same slot generation and order: same runs). */
  runTopic: Int32Array;
  runsOf: { generation: number; slotAt: Int32Array } | null;
}

export class TopicLagChanges {
  private readonly flows = new Map<string, FlowTopics>();
  private pending: { state: FlowTopics; t: number; lag: bigint }[] = [];

  /**
   * The topics of `flows` whose lag differs from the last remembered, in the order each flow lists them first;
   * `sumLagPerTopic` is the bigint sum of a flow the columns cannot give. Remember them with `remember` once written.
   */
  list(flows: readonly Flow[], sumLagPerTopic: (flow: Flow) => Map<string, bigint>): TopicLagChange[] {
    const changed: TopicLagChange[] = [];
    this.pending = [];
    for (const flow of flows) {
      const state = this.readState(flow.id);
      const columns = readExactColumns(flow);
      if (columns === null || columns.duplicates) {
        for (const [topic, lag] of sumLagPerTopic(flow)) this.compare(state, flow.id, this.indexOf(state, topic), lag, changed);
        continue;
      }
      this.listFromColumns(flow, columns, state, changed, sumLagPerTopic);
    }
    return changed;
  }

  /** Remembers the last `list`'s changes (call once they are written). */
  remember(): void {
    for (const { state, t, lag } of this.pending) {
      const n = Number(lag);
      if (Number.isSafeInteger(n)) {
        state.written[t] = n;
        state.big.delete(t);
      } else {
        state.written[t] = Number.NaN;
        state.big.set(t, lag);
      }
    }
    this.pending = [];
  }

  private listFromColumns(
    flow: Flow,
    columns: FlowColumns,
    state: FlowTopics,
    changed: TopicLagChange[],
    sumLagPerTopic: (flow: Flow) => Map<string, bigint>,
  ): void {
    const { lag, slotAt, topicRunStarts: starts } = columns;
    const runTopic = this.readRunTopics(flow, columns, state);
    const sums = new Float64Array(state.topics.length);
    let exact = true;
    for (let r = 0; r < starts.length; r++) {
      const to = r + 1 < starts.length ? starts[r + 1]! : slotAt.length;
      const t = runTopic[r]!;
      let sum = sums[t]!;
      for (let i = starts[r]!; i < to; i++) {
        const v = lag[slotAt[i]!]!;
        if (v !== v) continue;
        sum += v;
        // Each partial sum is checked: a sum that went past 2^53 and came back is not exact either.
        if (sum > Number.MAX_SAFE_INTEGER || sum < -Number.MAX_SAFE_INTEGER) exact = false;
      }
      sums[t] = sum;
    }
    if (!exact) {
      for (const [topic, sum] of sumLagPerTopic(flow)) this.compare(state, flow.id, this.indexOf(state, topic), sum, changed);
      return;
    }
    const seen = new Uint8Array(state.topics.length);
    for (let r = 0; r < starts.length; r++) {
      const t = runTopic[r]!;
      if (seen[t] === 1) continue;
      seen[t] = 1;
      const sum = sums[t]!;
      if (sum === state.written[t] && !state.big.has(t)) continue;
      const lagSum = BigInt(sum);
      changed.push([flow.id, state.topics[t]!, lagSum]);
      this.pending.push({ state, t, lag: lagSum });
    }
  }

  /** Each run's topic index, the last ones while the flow's slots are in the same generation and order. */
  private readRunTopics(flow: Flow, columns: FlowColumns, state: FlowTopics): Int32Array {
    const runsOf = state.runsOf;
    if (runsOf !== null && runsOf.generation === columns.generation && isSame(runsOf.slotAt, columns.slotAt)) return state.runTopic;
    const starts = columns.topicRunStarts;
    const runTopic = new Int32Array(starts.length);
    for (let r = 0; r < starts.length; r++) runTopic[r] = this.indexOf(state, readPartitionTopic(flow, starts[r]!).topic);
    state.runTopic = runTopic;
    state.runsOf = { generation: columns.generation, slotAt: columns.slotAt.slice() };
    return runTopic;
  }

  private compare(state: FlowTopics, flow: string, t: number, lag: bigint, changed: TopicLagChange[]): void {
    const held = state.big.get(t);
    const same = held !== undefined ? held === lag : state.written[t] === Number(lag) && Number.isSafeInteger(Number(lag));
    if (same) return;
    changed.push([flow, state.topics[t]!, lag]);
    this.pending.push({ state, t, lag });
  }

  private readState(flowId: string): FlowTopics {
    let state = this.flows.get(flowId);
    if (state === undefined) {
      state = { index: new Map(), topics: [], written: new Float64Array(0), big: new Map(), runTopic: new Int32Array(0), runsOf: null };
      this.flows.set(flowId, state);
    }
    return state;
  }

  /** The topic's index in the flow (a topic seen for the first time gets the next one, never written). */
  private indexOf(state: FlowTopics, topic: string): number {
    let t = state.index.get(topic);
    if (t !== undefined) return t;
    t = state.topics.length;
    state.index.set(topic, t);
    state.topics.push(topic);
    if (t >= state.written.length) {
      const written = new Float64Array(Math.max(64, 2 * state.written.length)).fill(Number.NaN);
      written.set(state.written);
      state.written = written;
    }
    return t;
  }
}

function isSame(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
