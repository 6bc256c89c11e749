import { describe, expect, it } from "vitest";
import { flowPartitionKey, type Flow, type FlowPartition } from "@/lib/collector/types";
import { applySourceTails, fetchSourceTails } from "@/lib/collector/unreplicated-tail";
import type { ClusterReader, FetchedRecord, FetchRequestItem } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeFlow, makeFlowPartition } from "../detect/fixtures";

const record = (offset: bigint, timestamp: number): FetchedRecord => ({ offset, timestamp, key: null, value: Buffer.from(`v${offset}`), headers: [] });


const lagging = (partition: number, position: bigint, logEnd: bigint): FlowPartition =>
  makeFlowPartition({ partition, mm2Position: position, sourceLogEnd: logEnd, lag: logEnd - position, offsetLag: logEnd - position });

/** One cycle's source tail read and refinement, as the collector runs them. */
async function refine(flows: Flow[], reader: ClusterReader, markers: Set<string>): Promise<{ flows: Flow[]; errors: string[] }> {
  const { tails, errors } = await fetchSourceTails(flows, new Map([["east", reader]]));
  return { flows: applySourceTails(flows, tails, markers), errors };
}

describe("fetchSourceTails and applySourceTails", () => {
  it("counts data records when the read reached the log end: a trailing commit marker is no lag", async () => {
    const flow = makeFlow({ partitions: [lagging(0, 54n, 55n), lagging(1, 20n, 25n), lagging(2, 30n, 400n), makeFlowPartition({ partition: 3 })] });
    const seen: FetchRequestItem[][] = [];
    const reader = createFetchReader("east", 
      {
        // Only the commit marker at 54: nothing to copy.
        "orders/0": { records: [], highWatermark: 55n, logStartOffset: 0n, nextOffset: 55n, controlBatches: 1 },
        // 20..23 data (one open or aborted transaction's records count: MM2 copies them), marker at 24.
        "orders/1": { records: [record(20n, 1000), record(21n, 1001), record(22n, 1002), record(23n, 1003)], highWatermark: 25n, logStartOffset: 0n, nextOffset: 25n, controlBatches: 1 },
        // The read stopped long before the log end: the offset lag stays, with the oldest timestamp.
        "orders/2": { records: [record(30n, 2000), record(31n, 2001)], highWatermark: 400n, logStartOffset: 0n, nextOffset: 32n, controlBatches: 0 },
      },
      seen,
    );
    const markers = new Set<string>();
    const { flows, errors } = await refine([flow], reader, markers);
    expect(errors).toEqual([]);
    expect(seen.map((items) => items.map((i) => `${i.topic}/${i.partition}@${i.offset}`))).toEqual([["orders/0@54", "orders/1@20", "orders/2@30"]]);
    const rows = flows[0]!.partitions.map((p) => [p.partition, p.lag, p.offsetLag, p.lagBasis, p.oldestUnreplicatedTimestamp, p.transactionMarkersSeen]);
    expect(rows).toEqual([
      [0, 0n, 1n, "records", null, true],
      [1, 4n, 5n, "records", 1000, true],
      [2, 370n, 370n, "offsets", 2000, false],
      [3, 0n, 0n, "offsets", null, false],
    ]);
    expect(flows[0]!.totals.lag).toBe(374n);
    expect([...markers]).toEqual([flowPartitionKey("east->west", "orders", 0), flowPartitionKey("east->west", "orders", 1)]);
  });

  it("remembers markers across cycles and keeps the offset lag where the read failed", async () => {
    const flow: Flow = makeFlow({ partitions: [lagging(0, 54n, 55n)] });
    const markers = new Set([flowPartitionKey("east->west", "orders", 0)]);
    const reader = createFetchReader("east", { "orders/0": { error: "NOT_LEADER_OR_FOLLOWER" } }, []);
    const { flows } = await refine([flow], reader, markers);
    expect(flows[0]!.partitions.map((p) => [p.lag, p.lagBasis, p.transactionMarkersSeen])).toEqual([[1n, "offsets", true]]);
  });
});
