/**
 * The key columns (flow, topic, partition) of the partition series' batch (series.ts), the same arrays cycle after
 * cycle while every flow lists the same partitions in the same order: the tiered table then takes the last batch's
 * series ids without looking a key up (SeriesIds.reuse). "The same partitions in the same order" is read from the
 * flows' columns (lib/collector/flow-columns.ts): the same slot generation and the same slot at every position.
 */
import type { FlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readPartitionNumber, readPartitionTopic } from "@/lib/collector/flow-rows";
import type { Flow } from "@/lib/collector/types";
import type { SeriesBatch } from "./series-batch";

/** What one flow's keys were listed from. */
interface FlowLayout {
  flowId: string;
  generation: number;
  slotAt: Int32Array;
}

/** The last batch's key columns and the layouts they were listed from. */
export class PartitionBatchKeys {
  private layouts: FlowLayout[] = [];
  private keys: SeriesBatch["keys"] | null = null;

  /**
   * The key columns of `flows` (`columns[f]`: flow f's, null when it has none): the last ones when every flow has
   * columns, no partition listed twice and the same layout as last time; else listed again.
   */
  read(flows: readonly Flow[], columns: readonly (FlowColumns | null)[]): SeriesBatch["keys"] {
    if (this.keys !== null && this.hasSameLayouts(flows, columns)) return this.keys;
    const keys = listPartitionKeys(flows);
    const stable = columns.every((c) => c !== null && !c.duplicates);
    this.layouts = stable ? columns.map((c) => ({ flowId: c!.flowId, generation: c!.generation, slotAt: c!.slotAt.slice() })) : [];
    this.keys = stable ? keys : null;
    return keys;
  }

  private hasSameLayouts(flows: readonly Flow[], columns: readonly (FlowColumns | null)[]): boolean {
    if (flows.length !== this.layouts.length) return false;
    for (let f = 0; f < flows.length; f++) {
      const c = columns[f];
      const layout = this.layouts[f]!;
      if (c === null || c === undefined || c.duplicates || c.flowId !== layout.flowId || c.generation !== layout.generation) return false;
      if (!isSameSlotOrder(c.slotAt, layout.slotAt)) return false;
    }
    return true;
  }
}

function isSameSlotOrder(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The flows' partitions' keys, in order: flow id, topic, partition number. */
export function listPartitionKeys(flows: readonly Flow[]): SeriesBatch["keys"] {
  const count = flows.reduce((sum, f) => sum + countFlowPartitions(f), 0);
  const [flowIds, topics, partitions] = [new Array<string>(count), new Array<string>(count), new Array<number>(count)];
  let i = 0;
  for (const flow of flows) {
    const n = countFlowPartitions(flow);
    flowIds.fill(flow.id, i, i + n);
    for (let at = 0; at < n; at++) {
      topics[i] = readPartitionTopic(flow, at).topic;
      partitions[i++] = readPartitionNumber(flow, at);
    }
  }
  return [flowIds, topics, partitions];
}
