/**
 * A flow's offset columns by position in its partitions array (lib/collector/flow-columns.ts holds them by slot): what
 * the series rows and the metrics read per partition, in the flow's order, without its partitions' bigints. A flow
 * listing a partition twice (never buildFlow's) has one slot for both positions: its values are read from the
 * partitions themselves. A flow with an offset beyond 2^53 has no columns (fillFlowColumns refuses it): null, and the
 * caller reads its partitions' bigints (the store keeps any int64 exactly).
 */
import { type FlowColumns, OffsetBeyondExactError, readFlowColumns } from "@/lib/collector/flow-columns";
import type { Flow } from "@/lib/collector/types";

/** The offset columns of FlowColumns (NaN: unknown). */
export type OffsetColumn = "sourceLogStart" | "sourceLogEnd" | "mm2Position" | "targetLogEnd" | "lag";

/**
 * The named columns of a flow by position (NaN: unknown), exact integers; null when an offset of the flow is beyond
 * 2^53.
 */
export function readPositionColumns(flow: Flow, names: readonly OffsetColumn[]): Float64Array[] | null {
  const columns = readExactColumns(flow);
  if (columns === null) return null;
  const count = columns.slotAt.length;
  return names.map((name) => {
    const out = new Float64Array(count);
    if (columns.duplicates) {
      for (let i = 0; i < count; i++) {
        const value = flow.partitions[i]![name];
        out[i] = value === null ? Number.NaN : Number(value);
      }
      return out;
    }
    const bySlot = columns[name];
    const slotAt = columns.slotAt;
    for (let i = 0; i < count; i++) out[i] = bySlot[slotAt[i]!]!;
    return out;
  });
}

/** The flow's columns, or null when fillFlowColumns refuses an offset beyond 2^53; any other error is thrown. */
export function readExactColumns(flow: Flow): FlowColumns | null {
  try {
    return readFlowColumns(flow);
  } catch (err) {
    if (err instanceof OffsetBeyondExactError) return null;
    throw err;
  }
}
