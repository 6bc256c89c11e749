import { describe, expect, it } from "vitest";
import { checkTargetDensity, densityReasons, selectFlowDensityIssues } from "@/lib/collector/target-density";
import { flowPartitionKey } from "@/lib/collector/types";
import type { SourceTail } from "@/lib/collector/unreplicated-tail";
import type { FetchedRecord, FetchRequestItem, FetchResult } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeFlow, makeFlowPartition } from "../detect/fixtures";

const record = (offset: bigint, value: string): FetchedRecord => ({ offset, timestamp: 1000, key: null, value: Buffer.from(value), headers: [] });
const fetched = (records: FetchedRecord[], controlBatches = 0): FetchResult => ({ records, highWatermark: 0n, logStartOffset: 0n, nextOffset: 0n, controlBatches });


// Positions derived from the newest sync: p = 500, target log end 500 on each partition.
const derived = (partition: number) => makeFlowPartition({ partition, mm2Position: 500n, positionSource: "offset-sync", targetLogEnd: 500n, sourceLogEnd: 500n });
const key = (partition: number) => flowPartitionKey("east->west", "orders", partition);
const sourceTail = (value: string): SourceTail => ({ from: 499n, result: { records: [record(499n, value)], highWatermark: 500n, logStartOffset: 0n, nextOffset: 500n, controlBatches: 0 } });

describe("checkTargetDensity", () => {
  it("reads the target's last offset of each derived position once, and tells markers, a foreign record and MM2's copy apart", async () => {
    const flow = makeFlow({ partitions: [derived(0), derived(1), derived(2), makeFlowPartition({ partition: 3 })] });
    const seen: FetchRequestItem[][] = [];
    const reader = createFetchReader("west", 
      {
        "east.orders/0": fetched([], 1),
        "east.orders/1": fetched([record(499n, "written by someone else")]),
        "east.orders/2": fetched([record(499n, "order 499")]),
      },
      seen,
    );
    const tails = new Map([
      [key(1), sourceTail("order 499")],
      [key(2), sourceTail("order 499")],
    ]);
    const untrusted = new Map<string, string>();
    const { found, errors } = await checkTargetDensity([flow], new Map([["west", reader]]), tails, untrusted);
    expect(errors).toEqual([]);
    expect(seen.map((items) => items.map((i) => `${i.topic}/${i.partition}@${i.offset}`))).toEqual([["east.orders/0@499", "east.orders/1@499", "east.orders/2@499"]]);
    const foreign = "the target's last record (offset 499) is not MM2's copy of source offset 499: another producer writes to the target topic";
    expect([...found]).toEqual([key(0), key(1)]);
    expect([...untrusted]).toEqual([
      [key(0), densityReasons.markers],
      [key(1), foreign],
    ]);
    expect([...selectFlowDensityIssues("east->west", untrusted)]).toEqual([
      ["orders/0", densityReasons.markers],
      ["orders/1", foreign],
    ]);
    // Known for good: the next cycle does not read them again.
    const again: FetchRequestItem[][] = [];
    await checkTargetDensity([flow], new Map([["west", createFetchReader("west", {}, again)]]), tails, untrusted);
    expect(again.map((items) => items.map((i) => `${i.topic}/${i.partition}`))).toEqual([["east.orders/2"]]);
  });

  it("keeps the derived position when the source record is unknown or the read failed", async () => {
    const flow = makeFlow({ partitions: [derived(0), derived(1)] });
    const reader = createFetchReader("west", { "east.orders/0": fetched([record(499n, "x")]), "east.orders/1": { error: "NOT_LEADER_OR_FOLLOWER" } }, []);
    const untrusted = new Map<string, string>();
    const { found } = await checkTargetDensity([flow], new Map([["west", reader]]), new Map(), untrusted);
    expect([...found, ...untrusted.keys()]).toEqual([]);
  });
});
