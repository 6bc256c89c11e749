/**
 * The source tail read's choice of offsets and its refinement as they were before they read buildFlow's rows
 * (lib/collector/unreplicated-tail.ts): over each partition object, the refined flow a copy with every partition
 * copied. The differential test (source-tails-rows.test.ts) compares today's functions with these.
 */
import { summarizeFlowTotals } from "@/lib/collector/flow-builder";
import { type Flow, type FlowPartition, flowPartitionKey } from "@/lib/collector/types";
import type { SourceTail } from "@/lib/collector/unreplicated-tail";
import type { FetchedPartition, FetchRequestItem } from "@/lib/kafka";

/** The items fetchSourceTails asks the source for, per flow. */
export function chooseReferenceTailItems(flow: Flow): FetchRequestItem[] {
  return flow.partitions.flatMap((p) => {
    const from = chooseTailOffset(p);
    return from === null ? [] : [{ topic: p.topic, partition: p.partition, offset: from }];
  });
}

function chooseTailOffset(p: FlowPartition): bigint | null {
  if (p.mm2Position === null) return null;
  if (p.positionSource === "offset-sync" && p.mm2Position > 0n) return p.mm2Position - 1n;
  return p.offsetLag !== null && p.offsetLag > 0n ? p.mm2Position : null;
}

/** applySourceTails over partition objects (the lag column left out: the test derives it from the partitions). */
export function applyReferenceSourceTails(flows: readonly Flow[], tails: ReadonlyMap<string, SourceTail>, markerPartitions: Set<string>): Flow[] {
  return flows.map((flow) => {
    const partitions = flow.partitions.map((p) => {
      const key = flowPartitionKey(flow.id, p.topic, p.partition);
      const tail = tails.get(key);
      if (tail !== undefined && tail.result.controlBatches > 0) markerPartitions.add(key);
      const refined = tail === undefined || p.mm2Position === null || tail.from > p.mm2Position ? p : refineFromTail(p, tail.result);
      return { ...refined, transactionMarkersSeen: markerPartitions.has(key) };
    });
    return { ...flow, partitions, totals: summarizeFlowTotals(partitions) };
  });
}

function refineFromTail(p: FlowPartition, tail: FetchedPartition): FlowPartition {
  const position = p.mm2Position!;
  const logEnd = p.sourceLogEnd;
  const waiting = tail.records.filter((r) => r.offset >= position && (logEnd === null || r.offset < logEnd));
  const oldest = waiting[0]?.timestamp ?? null;
  if (logEnd === null || tail.nextOffset < logEnd || (p.offsetLag ?? 0n) === 0n) return { ...p, oldestUnreplicatedTimestamp: oldest };
  return { ...p, lag: BigInt(waiting.length), lagBasis: "records", oldestUnreplicatedTimestamp: oldest };
}
