import { type FlowColumns, isSameSlots, OffsetBeyondExactError, readFlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readPartitionNumber, readPartitionTopic } from "@/lib/collector/flow-rows";
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
 * The partitions one flow listed last cycle, by their slots in the flow's columns (lib/collector/flow-columns.ts: a slot
 * names one partition within a generation), and their index: a cycle listing the same slots at the same positions
 * (nearly every cycle) keeps the index, checked without reading a partition object (100,000 a cycle).
 */
interface FlowLayout {
  generation: number;
  slotAt: Int32Array;
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
      if (sampled.layout !== undefined) layouts.set(f.id, sampled.layout);
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

/**
 * The flow's progress sample, read from its columns (numbers, exact below 2^53) where they describe each position alone;
 * from its partition objects where they cannot (a partition listed twice, an offset beyond 2^53).
 */
function sampleFlow(flow: Flow, before: FlowLayout | undefined): { progress: FlowProgress; layout: FlowLayout | undefined } {
  const columns = readExactColumns(flow);
  if (columns === null) return { progress: sampleFlowObjects(flow), layout: undefined };
  const { slotAt, knownPositionOf, mm2Position, sourceLogEnd } = columns;
  const n = slotAt.length;
  const positions = new BigInt64Array(n);
  const logEnds = new BigInt64Array(n);
  const known = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const slot = slotAt[i]!;
    const position = mm2Position[slot]!;
    const logEnd = sourceLogEnd[slot]!;
    // Known: this position's data is (no duplicates: its slot's known position is this one), and neither value is NaN.
    if (knownPositionOf[slot] !== i || Number.isNaN(position) || Number.isNaN(logEnd)) continue;
    positions[i] = BigInt(position);
    logEnds[i] = BigInt(logEnd);
    known[i] = 1;
  }
  const same = before !== undefined && before.generation === columns.generation && isSameSlots(before.slotAt, slotAt);
  const layout = same ? before : { generation: columns.generation, slotAt, index: indexFlowPartitions(flow) };
  return { progress: { index: layout.index, positions, logEnds, known }, layout };
}

/** The flow's columns when every position has a slot of its own and every offset is exact as a number; else null. */
function readExactColumns(flow: Flow): FlowColumns | null {
  try {
    const columns = readFlowColumns(flow);
    return columns.duplicates ? null : columns;
  } catch (err) {
    // An offset beyond 2^53 (OffsetBeyondExactError): the partition objects' bigints hold it exactly.
    if (err instanceof OffsetBeyondExactError) return null;
    throw err;
  }
}

/** The sample from the partition objects (their bigints), with an index of its own. */
function sampleFlowObjects(flow: Flow): FlowProgress {
  const parts = flow.partitions;
  const n = parts.length;
  const positions = new BigInt64Array(n);
  const logEnds = new BigInt64Array(n);
  const known = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parts[i]!;
    if (p.unknown !== null || p.mm2Position === null || p.sourceLogEnd === null) continue;
    positions[i] = p.mm2Position;
    logEnds[i] = p.sourceLogEnd;
    known[i] = 1;
  }
  return { index: indexPartitions(parts), positions, logEnds, known };
}

function indexPartitions(parts: readonly FlowPartition[]): ReadonlyMap<string, number> {
  return new Map(parts.map((p, i) => [`${p.topic}/${p.partition}`, i]));
}

/** indexPartitions of a flow's partitions, read without making its partitions array (flow-rows.ts). */
function indexFlowPartitions(flow: Flow): ReadonlyMap<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < countFlowPartitions(flow); i++) index.set(`${readPartitionTopic(flow, i).topic}/${readPartitionNumber(flow, i)}`, i);
  return index;
}
