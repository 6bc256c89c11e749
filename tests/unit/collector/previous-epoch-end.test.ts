import { describe, expect, it } from "vitest";
import type { LeaderMark } from "@/lib/collector/leader-marks";
import { readPreviousEpochEnds } from "@/lib/collector/previous-epoch-end";
import type { TopicState } from "@/lib/collector/types";
import type { ClusterReader, EpochEndOffset, EpochEndRequest, ItemError } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeTopic } from "../detect/fixtures";

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

/** The last known marks: `ledger` p0 (high watermark 50 in epoch 7, read at 1000) and p1 (80 in epoch 3). */
const marks = new Map<string, LeaderMark>([
  ["ledger/0", { epoch: 7, logEnd: 50n, topicId: "id-ledger", seenAt: 1000 }],
  ["ledger/1", { epoch: 3, logEnd: 80n, topicId: "id-ledger", seenAt: 1000 }],
]);
/** This cycle: p0 led by broker 2 in epoch 9 (after an OFFLINE epoch 8, log end 70), p1 unchanged. */
const current = (overrides: Partial<TopicState> = {}): TopicState[] => [
  makeTopic("ledger", [{ partition: 0, leader: 2, leaderEpoch: 9, logEnd: 70n }, { partition: 1, leader: 1, leaderEpoch: 3, logEnd: 90n }], overrides),
];

describe("readPreviousEpochEnds", () => {
  it("asks only the partitions whose epoch is above their mark's, fenced to the new epoch, and attaches the mark with the answer", async () => {
    const { reader, asked } = createEpochReader(() => Promise.resolve(new Map([["ledger/0", { leaderEpoch: 7, endOffset: 30n }]])));
    const errors: string[] = [];
    const topics = await readPreviousEpochEnds(reader, marks, current(), errors);
    // Asked about epoch 7 (the mark's), not 8 (the OFFLINE epoch between).
    expect(asked).toEqual([[{ topic: "ledger", partition: 0, leader: 2, currentLeaderEpoch: 9, leaderEpoch: 7 }]]);
    expect(topics[0]!.partitions.map((p) => [p.partition, p.previousEpochEnd])).toEqual([
      [0, { epoch: 7, endOffset: 30n, knownLogEnd: 50n, knownAt: 1000 }],
      [1, undefined],
    ]);
    expect(errors).toEqual([]);
  });

  it("sends nothing without marks, for a recreated topic, a leaderless partition or an epoch not above the mark", async () => {
    const { reader, asked } = createEpochReader(() => Promise.reject(new Error("must not be asked")));
    const leaderless = [makeTopic("ledger", [{ partition: 0, leader: null, leaderEpoch: 8, logEnd: null }])];
    const same = [makeTopic("ledger", [{ partition: 0, leader: 1, leaderEpoch: 7, logEnd: 60n }])];
    const errors: string[] = [];
    for (const [known, now] of [
      [undefined, current()],
      [new Map<string, LeaderMark>(), current()],
      [marks, current({ topicId: "id-recreated" })],
      [marks, leaderless],
      [marks, same],
    ] as const) {
      expect(await readPreviousEpochEnds(reader, known, now, errors)).toBe(now);
    }
    expect([asked, errors]).toEqual([[], []]);
  });

  it("attaches the mark without an end offset when the read fails, and names the failure", async () => {
    const errors: string[] = [];
    const fenced = createEpochReader(() => Promise.resolve(new Map([["ledger/0", { error: "FENCED_LEADER_EPOCH" }]])));
    const topics = await readPreviousEpochEnds(fenced.reader, marks, current(), errors);
    expect(topics[0]!.partitions[0]!.previousEpochEnd).toEqual({ epoch: 7, endOffset: null, knownLogEnd: 50n, knownAt: 1000 });
    const down = createEpochReader(() => Promise.reject(new Error("broker 2: connect ECONNREFUSED")));
    const unanswered = await readPreviousEpochEnds(down.reader, marks, current(), errors);
    expect(unanswered[0]!.partitions[0]!.previousEpochEnd?.endOffset).toBeNull();
    expect(errors).toEqual(["OffsetForLeaderEpoch: ledger/0: FENCED_LEADER_EPOCH", "OffsetForLeaderEpoch: broker 2: connect ECONNREFUSED"]);
  });
});
