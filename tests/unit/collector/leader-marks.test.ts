import { describe, expect, it } from "vitest";
import { advanceLeaderMarks, type LeaderMarks, parseLeaderMarks, serializeLeaderMarks } from "@/lib/collector/leader-marks";
import type { PartitionState } from "@/lib/collector/types";
import { countClusterPartitionArraysMade } from "@/lib/collector/cluster-partition-rows";
import { makeCluster, makeTopic } from "../detect/fixtures";
import { T0 } from "./fixtures";
import { makeRandomCluster, pollRandomCluster } from "./random-clusters";

/** South at `now` with `ledger` p0 as given (led by 2, epoch 7, high watermark 50 unless overridden). */
const south = (now: number, p: Partial<PartitionState> = {}, topicId = "id-ledger", overrides = {}) =>
  makeCluster("south", { dataAt: now, topics: [makeTopic("ledger", [{ partition: 0, leader: 2, leaderEpoch: 7, logEnd: 50n, ...p }], { topicId })], ...overrides });

const markOf = (marks: LeaderMarks) => marks.get("south")?.get("ledger/0");

describe("advanceLeaderMarks", () => {
  it("keeps the last high watermark through OFFLINE and stale cycles, writing once when the partition stops advancing", () => {
    const marks: LeaderMarks = new Map();
    // New mark: written at once. Then an ordinary advance (written later, routinely).
    expect(advanceLeaderMarks(marks, south(1000), 0)).toBe(true);
    expect(advanceLeaderMarks(marks, south(2000, { logEnd: 60n }), 1000)).toBe(false);
    // OFFLINE (no leader, epoch 8): the mark stays at 60 and, newer than the store's, is written now.
    expect(advanceLeaderMarks(marks, south(3000, { leader: null, leaderEpoch: 8, logEnd: null }), 1000)).toBe(true);
    expect(markOf(marks)).toEqual({ epoch: 7, logEnd: 60n, topicId: "id-ledger", seenAt: 2000 });
    // Written at 3000: more OFFLINE or stale cycles change nothing.
    expect(advanceLeaderMarks(marks, south(4000, { leader: null, leaderEpoch: 8, logEnd: null }), 3000)).toBe(false);
    expect(advanceLeaderMarks(marks, south(5000, { logEnd: 5n, leaderEpoch: 9 }, "id-ledger", { stale: true, reachable: false }), 3000)).toBe(false);
    expect(markOf(marks)?.logEnd).toBe(60n);
  });

  it("keeps the mark while an epoch rise is unanswered and moves to the new epoch once it is", () => {
    const marks: LeaderMarks = new Map();
    advanceLeaderMarks(marks, south(1000), 0);
    const unanswered = { epoch: 7, endOffset: null, knownLogEnd: 50n, knownAt: 1000 };
    expect(advanceLeaderMarks(marks, south(2000, { leader: 1, leaderEpoch: 9, logEnd: 30n, previousEpochEnd: unanswered }), 1000)).toBe(false);
    expect(markOf(marks)).toEqual({ epoch: 7, logEnd: 50n, topicId: "id-ledger", seenAt: 1000 });
    const answered = { ...unanswered, endOffset: 30n };
    expect(advanceLeaderMarks(marks, south(3000, { leader: 1, leaderEpoch: 9, logEnd: 30n, previousEpochEnd: answered }), 1000)).toBe(true);
    expect(markOf(marks)).toEqual({ epoch: 9, logEnd: 30n, topicId: "id-ledger", seenAt: 3000 });
  });

  it("starts over for a recreated topic and forgets a deleted one", () => {
    const marks: LeaderMarks = new Map();
    advanceLeaderMarks(marks, south(1000), 0);
    expect(advanceLeaderMarks(marks, south(2000, { leaderEpoch: 0, logEnd: 3n }, "id-new"), 1000)).toBe(true);
    expect(markOf(marks)).toEqual({ epoch: 0, logEnd: 3n, topicId: "id-new", seenAt: 2000 });
    expect(advanceLeaderMarks(marks, makeCluster("south", { dataAt: 3000, topics: [] }), 2000)).toBe(true);
    expect(markOf(marks)).toBeUndefined();
  });
});

describe("serializeLeaderMarks / parseLeaderMarks", () => {
  it("round-trips the marks, and an unreadable value gives none with the reason", () => {
    const marks: LeaderMarks = new Map();
    advanceLeaderMarks(marks, makeCluster("south", { dataAt: 1000, topics: [makeTopic("a.b", [{ partition: 0, leaderEpoch: 4, logEnd: 12345678901234n }, { partition: 3, leaderEpoch: 2, logEnd: 7n }])] }), 0);
    expect(parseLeaderMarks(serializeLeaderMarks(marks))).toEqual({ marks, error: null });
    expect(parseLeaderMarks(null)).toEqual({ marks: new Map(), error: null });
    expect(parseLeaderMarks("{").error).toMatch(/^stored leader marks are not JSON/);
    expect(parseLeaderMarks('{"south":{"t":{"id":null,"p":{"0":[1,"-5",0]}}}}').error).not.toBeNull();
  });
});

describe("advanceLeaderMarks over the cluster poll's rows", () => {
  it("advances the marks as over the made partition arrays (random clusters, cycle after cycle)", async () => {
    const before = countClusterPartitionArraysMade();
    for (let run = 0; run < 40; run++) {
      const fromRows: LeaderMarks = new Map();
      const fromArrays: LeaderMarks = new Map();
      for (let cycle = 0; cycle < 6; cycle++) {
        const cluster = makeRandomCluster(run * 100 + cycle + 1);
        const now = T0 + cycle * 10_000;
        const rows = await pollRandomCluster(cluster, fromRows.get("east") ?? cluster.marks, now);
        const arrays = await pollRandomCluster(cluster, fromArrays.get("east") ?? cluster.marks, now);
        for (const t of arrays.topics) expect(t.partitions).toBeDefined();
        const made = countClusterPartitionArraysMade();
        const writtenAt = now - 20_000;
        expect(advanceLeaderMarks(fromRows, rows, writtenAt), `run ${run} cycle ${cycle}`).toBe(advanceLeaderMarks(fromArrays, arrays, writtenAt));
        expect(countClusterPartitionArraysMade()).toBe(made);
        expect(fromRows, `run ${run} cycle ${cycle}`).toStrictEqual(fromArrays);
      }
    }
    expect(countClusterPartitionArraysMade()).toBeGreaterThan(before);
  });
});
