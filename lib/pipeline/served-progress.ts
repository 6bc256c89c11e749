/**
 * The catch-up samples (ReadModel.progress) as the encoder takes them. Each flow's sample carries its partitions'
 * index, a Map of `topic/partition` → slot (100,000 keys at 100,000 partitions), which the progress window keeps from
 * cycle to cycle while the flow lists the same partitions (progress-window.ts) and which this cycle's sample and the
 * window's oldest usually share: written as a Map, the encoder looked every key up and stringified it again twice a
 * publication, nearly all of the part's cost. Here an index hands over its columns (columnar-source.ts), made once per
 * index and kept with it; the bytes are those of the Map. Only the encoder reads these.
 */
import type { FlowProgress, ProgressReading, ProgressSample } from "./progress-window";
import { type ColumnarMap, type ColumnarSource, describeDistinctStrings, encodeAsColumns } from "./columnar-source";

/** Each index's columns, by the index (the window never changes an index it made: it makes a new one). */
const indexColumns = new WeakMap<ReadonlyMap<string, number>, ColumnarMap>();

/** `reading` with each flow's index handed over as columns (for encodeColumnar only). */
export function serveProgress(reading: ProgressReading): unknown {
  return { current: serveSample(reading.current), reference: reading.reference && serveSample(reading.reference) };
}

function serveSample(sample: ProgressSample): unknown {
  const flows = new Map<string, unknown>();
  for (const [flow, progress] of sample.flows) flows.set(flow, serveFlowProgress(progress));
  return { ...sample, flows };
}

/** The flow's sample with its index (in its place among the keys) as columns. */
function serveFlowProgress(progress: FlowProgress): unknown {
  return { ...progress, index: new IndexColumns(progress.index) };
}

/** An index as the encoder takes it: the columns of the Map, made when first encoded. */
class IndexColumns implements ColumnarSource {
  constructor(private readonly index: ReadonlyMap<string, number>) {}

  [encodeAsColumns](): ColumnarMap {
    let columns = indexColumns.get(this.index);
    if (columns === undefined) {
      columns = {
        kind: "map",
        keys: describeDistinctStrings([...this.index.keys()]),
        values: { kind: "values", values: [...this.index.values()] },
      };
      indexColumns.set(this.index, columns);
    }
    return columns;
  }
}
