import { describe, expect, it } from "vitest";
import { readPreviousEpochEnds } from "@/lib/collector/previous-epoch-end";
import type { ClusterSnapshot, TopicState } from "@/lib/collector/types";
import type { ClusterReader, EpochEndOffset, EpochEndRequest, ItemError } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeCluster, makeTopic } from "../detect/fixtures";

/** A reader answering OffsetForLeaderEpoch from `answer`, recording every request list. */
function createEpochReader(answer: (requests: EpochEndRequest[]) => Promise<Map<string, EpochEndOffset | ItemError>>) {
  const asked: EpochEndRequest[][] = [];
  const reader: ClusterReader = {
    ...createFetchReader("east", {}),
    readEpochEndOffsets: (requests) => {
      asked.push(requests);
      return answer(requests);
    },
  };
  return { reader, asked };
}

/** `ledger` p0 (log end 50) and p1 (log end 80), both led by broker 1 in epoch 7 / 3. */
const previous = makeCluster("east", {
  topics: [makeTopic("ledger", [{ partition: 0, leader: 1, leaderEpoch: 7, logEnd: 50n }, { partition: 1, leader: 1, leaderEpoch: 3, logEnd: 80n }])],
});
/** This cycle: p0 led by broker 2 in epoch 8 (log end 70), p1 unchanged. */
const current = (overrides: Partial<TopicState> = {}): TopicState[] => [
  makeTopic("ledger", [{ partition: 0, leader: 2, leaderEpoch: 8, logEnd: 70n }, { partition: 1, leader: 1, leaderEpoch: 3, logEnd: 90n }], overrides),
];

describe("readPreviousEpochEnds", () => {
  it("asks only the partitions whose epoch rose, fenced to the new epoch, and attaches the new leader's end offset of the old one", async () => {
    const { reader, asked } = createEpochReader(() => Promise.resolve(new Map([["ledger/0", { leaderEpoch: 7, endOffset: 30n }]])));
    const errors: string[] = [];
    const topics = await readPreviousEpochEnds(reader, previous, current(), errors);
    expect(asked).toEqual([[{ topic: "ledger", partition: 0, leader: 2, currentLeaderEpoch: 8, leaderEpoch: 7 }]]);
    expect(topics[0]!.partitions.map((p) => [p.partition, p.previousEpochEnd])).toEqual([
      [0, { epoch: 7, endOffset: 30n }],
      [1, undefined],
    ]);
    expect(errors).toEqual([]);
  });

  it("sends nothing without a fresh previous cycle, for a recreated topic, a leaderless partition or an unknown previous log end", async () => {
    const { reader, asked } = createEpochReader(() => Promise.reject(new Error("must not be asked")));
    const stale: ClusterSnapshot = { ...previous, reachable: false, stale: true };
    const noLogEnd = makeCluster("east", { topics: [makeTopic("ledger", [{ partition: 0, leaderEpoch: 7, logEnd: null }])] });
    const leaderless = [makeTopic("ledger", [{ partition: 0, leader: null, leaderEpoch: 8, logEnd: null }])];
    const errors: string[] = [];
    for (const [before, now] of [
      [null, current()],
      [stale, current()],
      [previous, current({ topicId: "id-recreated" })],
      [previous, leaderless],
      [noLogEnd, current()],
    ] as const) {
      expect(await readPreviousEpochEnds(reader, before, now, errors)).toBe(now);
    }
    expect([asked, errors]).toEqual([[], []]);
  });

  it("names a failed read in the cluster's errors and attaches nothing", async () => {
    const errors: string[] = [];
    const fenced = createEpochReader(() => Promise.resolve(new Map([["ledger/0", { error: "FENCED_LEADER_EPOCH" }]])));
    const topics = await readPreviousEpochEnds(fenced.reader, previous, current(), errors);
    expect(topics[0]!.partitions[0]!.previousEpochEnd).toBeUndefined();
    const down = createEpochReader(() => Promise.reject(new Error("broker 2: connect ECONNREFUSED")));
    await readPreviousEpochEnds(down.reader, previous, current(), errors);
    expect(errors).toEqual(["OffsetForLeaderEpoch: ledger/0: FENCED_LEADER_EPOCH", "OffsetForLeaderEpoch: broker 2: connect ECONNREFUSED"]);
  });
});
