import { describe, expect, it } from "vitest";
import { readEligibleLeaderReplicas } from "@/lib/collector/eligible-leaders";
import type { ClusterReader } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeTopic } from "../detect/fixtures";

/** `ledger` p0 led by 2 alone in sync, p1 fully in sync; `solo` with one replica; `pairs` p0 led by 3 alone. */
const topics = () => [
  makeTopic("ledger", [{ partition: 0, leader: 2, replicas: [2, 1], isr: [2] }, { partition: 1, leader: 1, replicas: [1, 2], isr: [1, 2] }]),
  makeTopic("solo", [{ partition: 0, leader: 3, replicas: [3], isr: [3] }]),
  makeTopic("pairs", [{ partition: 0, leader: 3, replicas: [3, 1], isr: [3] }]),
];

function createElrReader(answer: () => Promise<Map<string, number[]> | null>) {
  const asked: string[][] = [];
  const reader: ClusterReader = {
    ...createFetchReader("east", {}),
    readEligibleLeaders: (names) => {
      asked.push(names);
      return answer();
    },
  };
  return { reader, asked };
}

const elrOf = (result: Awaited<ReturnType<typeof readEligibleLeaderReplicas>>) =>
  result.flatMap((t) => t.partitions.map((p) => [`${t.name}/${p.partition}`, p.eligibleLeaderReplicas]));

describe("readEligibleLeaderReplicas", () => {
  it("asks only for topics with a leader alone in sync and attaches ELR to those partitions only", async () => {
    const { reader, asked } = createElrReader(() => Promise.resolve(new Map([["ledger/0", [1]], ["ledger/1", []]])));
    const errors: string[] = [];
    expect(elrOf(await readEligibleLeaderReplicas(reader, topics(), errors))).toEqual([
      ["ledger/0", [1]],
      ["ledger/1", undefined],
      ["solo/0", undefined],
      // Not in the answer (e.g. beyond the response's page): unknown.
      ["pairs/0", null],
    ]);
    expect([asked, errors]).toEqual([[["ledger", "pairs"]], []]);
  });

  it("takes brokers without DescribeTopicPartitions as having no eligible replicas, and a failure as unknown", async () => {
    const old = createElrReader(() => Promise.resolve(null));
    expect(elrOf(await readEligibleLeaderReplicas(old.reader, topics(), [])).filter(([, elr]) => elr !== undefined)).toEqual([
      ["ledger/0", []],
      ["pairs/0", []],
    ]);
    const errors: string[] = [];
    const down = createElrReader(() => Promise.reject(new Error("cluster east: DescribeTopicPartitions failed: timeout")));
    expect(elrOf(await readEligibleLeaderReplicas(down.reader, topics(), errors)).filter(([, elr]) => elr !== undefined)).toEqual([
      ["ledger/0", null],
      ["pairs/0", null],
    ]);
    expect(errors).toEqual(["DescribeTopicPartitions: cluster east: DescribeTopicPartitions failed: timeout"]);
    const healthy = createElrReader(() => Promise.reject(new Error("must not be asked")));
    const all = [makeTopic("ledger", [{ partition: 0, leader: 2, replicas: [2, 1], isr: [1, 2] }])];
    expect(await readEligibleLeaderReplicas(healthy.reader, all, [])).toBe(all);
    expect(healthy.asked).toEqual([]);
  });
});
