import type { Flow, FlowPartition, Snapshot } from "@/lib/collector/types";

/**
 * MM2's position and the source log end of every partition of one flow at one cycle, in arrays aligned with
 * `index` (topic/partition → slot): 17 bytes a partition, so a window of samples over 100,000 partitions stays
 * a few tens of MB. A slot whose partition was unknown that cycle has `known` 0.
 */
export interface FlowProgress {
  index: ReadonlyMap<string, number>;
  positions: BigInt64Array;
  logEnds: BigInt64Array;
  known: Uint8Array;
}

/** Every flow's progress at one cycle. */
export interface ProgressSample {
  at: number;
  flows: ReadonlyMap<string, FlowProgress>;
}

/** What the read model carries: this cycle's sample and the oldest one of the window (null in the first cycle). */
export interface ProgressReading {
  current: ProgressSample;
  reference: ProgressSample | null;
}

/**
 * The partitions one flow listed last cycle, slot by slot, and their index: a cycle listing the same partitions in
 * the same slots (nearly every cycle) keeps the index, checked without building a `topic/partition` string per
 * partition (100,000 a cycle).
 */
interface FlowLayout {
  topics: string[];
  partitions: Float64Array;
  index: ReadonlyMap<string, number>;
}

/**
 * The samples of the last `windowMs` the time-to-catch-up estimate compares (lib/views/catch-up.ts): one per
 * tenth of the window at most, so the window holds about eleven whatever the poll interval.
 */
export class ProgressWindow {
  private samples: ProgressSample[] = [];
  private layouts = new Map<string, FlowLayout>();

  constructor(private readonly windowMs: number) {}

  /** Samples the snapshot and returns it with the window's oldest sample. */
  record(snapshot: Snapshot): ProgressReading {
    const previous = this.samples[this.samples.length - 1];
    const layouts = new Map<string, FlowLayout>();
    const flows = new Map<string, FlowProgress>();
    for (const f of snapshot.flows) {
      const sampled = sampleFlow(f, this.layouts.get(f.id));
      layouts.set(f.id, sampled.layout);
      flows.set(f.id, sampled.progress);
    }
    // Only the flows of this snapshot: a flow gone since leaves no layout behind.
    this.layouts = layouts;
    const current: ProgressSample = { at: snapshot.takenAt, flows };
    const spacing = this.windowMs / 10;
    if (previous === undefined || current.at - previous.at >= spacing) this.samples.push(current);
    // Keep one sample at or beyond the window's start, so the rate covers the whole window once it is full.
    while (this.samples.length > 1 && current.at - this.samples[1]!.at >= this.windowMs) this.samples.shift();
    const oldest = this.samples[0]!;
    return { current, reference: oldest === current || oldest.at >= current.at ? null : oldest };
  }
}

function sampleFlow(flow: Flow, before: FlowLayout | undefined): { progress: FlowProgress; layout: FlowLayout } {
  const parts = flow.partitions;
  const n = parts.length;
  const positions = new BigInt64Array(n);
  const logEnds = new BigInt64Array(n);
  const known = new Uint8Array(n);
  let same = before !== undefined && before.topics.length === n;
  for (let i = 0; i < n; i++) {
    const p = parts[i]!;
    if (same && (before!.topics[i] !== p.topic || before!.partitions[i] !== p.partition)) same = false;
    if (p.unknown !== null || p.mm2Position === null || p.sourceLogEnd === null) continue;
    positions[i] = p.mm2Position;
    logEnds[i] = p.sourceLogEnd;
    known[i] = 1;
  }
  const layout = same ? before! : describeLayout(parts);
  return { progress: { index: layout.index, positions, logEnds, known }, layout };
}

function describeLayout(parts: readonly FlowPartition[]): FlowLayout {
  return {
    topics: parts.map((p) => p.topic),
    partitions: Float64Array.from(parts, (p) => p.partition),
    index: new Map(parts.map((p, i) => [`${p.topic}/${p.partition}`, i])),
  };
}
