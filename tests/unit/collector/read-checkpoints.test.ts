import { describe, expect, it } from "vitest";
import { createFlowTailState, readFlow } from "@/lib/collector/flow-readings";
import type { CheckpointPoint } from "@/lib/collector/types";
import type { FetchedRecord, FetchRequestItem } from "@/lib/kafka";
import { encodeCheckpointKey, encodeCheckpointValue } from "@/lib/mm2";
import { createFetchReader } from "./fetch-reader";
import { makeCluster, makeDefinition, makeTopic, T0 } from "./fixtures";

const checkpointsTopic = "east.checkpoints.internal";

function checkpointRecord(offset: bigint, timestamp: number, group: string, upstream: bigint, downstream: bigint): FetchedRecord {
  return {
    offset,
    timestamp,
    key: encodeCheckpointKey({ group, topic: "east.orders", partition: 0 }),
    value: encodeCheckpointValue({ upstream, downstream, metadata: "" }),
    headers: [],
  };
}


describe("readCheckpoints", () => {
  it("keeps each checkpoint's own record timestamp when a malformed record comes before it", async () => {
    const malformed: FetchedRecord = { offset: 1n, timestamp: T0 + 1_000, key: Buffer.from([0, 1]), value: Buffer.from([9]), headers: [] };
    const records = [checkpointRecord(0n, T0, "g1", 10n, 10n), malformed, checkpointRecord(2n, T0 + 2_000, "g2", 20n, 19n)];
    const west = makeCluster("west", [makeTopic(checkpointsTopic, [{ logStart: 0n, logEnd: 3n }], { internal: false })]);
    const state = createFlowTailState();
    const stored: CheckpointPoint[] = [];
    const seen: FetchRequestItem[][] = [];
    const answer = { records, highWatermark: 3n, logStartOffset: 0n, nextOffset: 3n, controlBatches: 0 };
    const readings = await readFlow(makeDefinition(), {
      readers: new Map([["west", createFetchReader("west", { [`${checkpointsTopic}/0`]: answer }, seen)]]),
      clusters: new Map([["west", west]]),
      connect: [],
      state,
      now: T0 + 60_000,
      onCheckpoints: (_flow, points) => stored.push(...points),
    });
    const expected: CheckpointPoint[] = [
      { group: "g1", topic: "orders", partition: 0, upstream: 10n, downstream: 10n, at: T0 },
      { group: "g2", topic: "orders", partition: 0, upstream: 20n, downstream: 19n, at: T0 + 2_000 },
    ];
    expect(readings.checkpoints).toEqual(expected);
    expect(stored).toEqual(expected);
    expect(state.malformed).toEqual({ [`west/${checkpointsTopic}`]: 1 });
    expect(seen.flat().filter((i) => i.topic === checkpointsTopic)).toEqual([{ topic: checkpointsTopic, partition: 0, offset: 0n }]);
  });
});
