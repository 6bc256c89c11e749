import { describe, expect, it } from "vitest";
import { countClusterPartitionArraysMade, findTopicRows, PartitionStateReader } from "@/lib/collector/cluster-partition-rows";
import { readEligibleLeaderReplicas } from "@/lib/collector/eligible-leaders";
import { readPreviousEpochEnds } from "@/lib/collector/previous-epoch-end";
import { makeExpectedTopics, makeRandomCluster, makeReader, pollRandomCluster } from "./random-clusters";

/** JSON with bigints marked, so that key order, absent keys and bigint values all count. */
const stringify = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));

describe("the cluster poll's partition rows", () => {
  it("make, when read, the partition states the poll made as objects (random clusters)", async () => {
    let epochEnds = 0;
    let eligible = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const cluster = makeRandomCluster(seed);
      const reader = makeReader(cluster);
      const errors: string[] = [];
      // The object path of previous-epoch-end.ts and eligible-leaders.ts is the one they had before rows.
      const withEnds = await readPreviousEpochEnds(reader, cluster.marks, makeExpectedTopics(cluster), errors);
      const expected = await readEligibleLeaderReplicas(reader, withEnds, errors);
      const polled = await pollRandomCluster(cluster);
      expect(polled.topics.every((t) => findTopicRows(t) !== undefined), `seed ${seed}`).toBe(true);
      expect(stringify(polled.topics), `seed ${seed}`).toBe(stringify(expected));
      expect(polled.topics, `seed ${seed}`).toStrictEqual(expected);
      expect(polled.topics.every((t) => findTopicRows(t) === undefined), `seed ${seed}`).toBe(true);
      for (const t of expected) {
        for (const p of t.partitions) {
          if (p.previousEpochEnd !== undefined) epochEnds++;
          if (p.eligibleLeaderReplicas !== undefined) eligible++;
        }
      }
    }
    // The random clusters reach the rare fields.
    expect(epochEnds).toBeGreaterThan(50);
    expect(eligible).toBeGreaterThan(50);
  });

  it("are read as numbers (NaN: null) by readNumbers, from the rows and from a made array alike", async () => {
    let nulls = 0;
    let inexact = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const cluster = makeRandomCluster(seed);
      const polled = await pollRandomCluster(cluster);
      const expected = makeExpectedTopics(cluster);
      const made = countClusterPartitionArraysMade();
      const fromRows = new PartitionStateReader();
      const fromArray = new PartitionStateReader();
      for (let t = 0; t < expected.length; t++) {
        const states = expected[t]!.partitions;
        expect(fromRows.open(polled.topics[t]!), `seed ${seed}`).toBe(states.length);
        fromArray.open(expected[t]!);
        for (let i = 0; i < states.length; i++) {
          const state = states[i]!;
          const want = {
            topic: state.topic, partition: state.partition, leaderEpoch: state.leaderEpoch,
            logStart: state.logStart === null ? Number.NaN : Number(state.logStart),
            logEnd: state.logEnd === null ? Number.NaN : Number(state.logEnd), error: state.error,
          };
          expect({ ...fromRows.readNumbers(i) }, `seed ${seed} ${state.topic}/${state.partition}`).toEqual(want);
          expect({ ...fromArray.readNumbers(i) }, `seed ${seed} ${state.topic}/${state.partition}`).toEqual(want);
          // The bigints stay exact where the numbers are not.
          expect(fromRows.read(i).logEnd, `seed ${seed}`).toBe(state.logEnd);
          if (state.logStart === null || state.logEnd === null) nulls++;
          if (state.logEnd !== null && !Number.isSafeInteger(Number(state.logEnd))) inexact++;
        }
      }
      expect(countClusterPartitionArraysMade(), `seed ${seed}`).toBe(made);
    }
    expect(nulls).toBeGreaterThan(20);
    expect(inexact).toBeGreaterThan(0);
  });

  it("make a topic's array once, when first read, and keep it", async () => {
    let seed = 1;
    while (makeRandomCluster(seed).metadata.topics.length === 0) seed++;
    const polled = await pollRandomCluster(makeRandomCluster(seed));
    const topic = polled.topics[0]!;
    const before = countClusterPartitionArraysMade();
    const first = topic.partitions;
    expect(countClusterPartitionArraysMade() - before).toBe(1);
    expect(topic.partitions).toBe(first);
    expect(countClusterPartitionArraysMade() - before).toBe(1);
    expect(Object.keys(topic)).toEqual(["name", "topicId", "internal", "configs", "partitions"]);
  });
});
