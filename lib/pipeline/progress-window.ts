import type { Flow, Snapshot } from "@/lib/collector/types";

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
 * The samples of the last `windowMs` the time-to-catch-up estimate compares (lib/views/catch-up.ts): one per
 * tenth of the window at most, so the window holds about eleven whatever the poll interval.
 */
export class ProgressWindow {
  private samples: ProgressSample[] = [];

  constructor(private readonly windowMs: number) {}

  /** Samples the snapshot and returns it with the window's oldest sample. */
  record(snapshot: Snapshot): ProgressReading {
    const previous = this.samples[this.samples.length - 1];
    const current: ProgressSample = { at: snapshot.takenAt, flows: new Map(snapshot.flows.map((f) => [f.id, sampleFlow(f, previous?.flows.get(f.id))])) };
    const spacing = this.windowMs / 10;
    if (previous === undefined || current.at - previous.at >= spacing) this.samples.push(current);
    // Keep one sample at or beyond the window's start, so the rate covers the whole window once it is full.
    while (this.samples.length > 1 && current.at - this.samples[1]!.at >= this.windowMs) this.samples.shift();
    const oldest = this.samples[0]!;
    return { current, reference: oldest === current || oldest.at >= current.at ? null : oldest };
  }
}

function sampleFlow(flow: Flow, before: FlowProgress | undefined): FlowProgress {
  const n = flow.partitions.length;
  // The partition list rarely changes between cycles: reuse the previous index when it still fits.
  const reuse = before !== undefined && before.index.size === n && flow.partitions.every((p, i) => before.index.get(`${p.topic}/${p.partition}`) === i);
  const index = reuse ? before.index : new Map(flow.partitions.map((p, i) => [`${p.topic}/${p.partition}`, i]));
  const positions = new BigInt64Array(n);
  const logEnds = new BigInt64Array(n);
  const known = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = flow.partitions[i]!;
    if (p.unknown !== null || p.mm2Position === null || p.sourceLogEnd === null) continue;
    positions[i] = p.mm2Position;
    logEnds[i] = p.sourceLogEnd;
    known[i] = 1;
  }
  return { index, positions, logEnds, known };
}
