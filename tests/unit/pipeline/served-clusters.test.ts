/**
 * A cluster's partition states written from its rows a column at a time (served-clusters.ts) encode byte for byte as
 * the made states (ClusterPartitionRows.makePartition) encoded value by value: over random clusters whose states have
 * the rare fields, offsets beyond 2^53, null offsets, errors, no leader, replica lists of more than three ids and ids
 * of 1,024 and more, with topics enough to be a column (every topic of a cluster one run) and clusters mixed.
 */
import { describe, expect, it } from "vitest";
import {
  countClusterPartitionArraysMade, definePartitionsFromRows, findTopicRows,
} from "@/lib/collector/cluster-partition-rows";
import type { ClusterSnapshot, TopicState } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { serveClusterRows } from "@/lib/pipeline/served-clusters";
import { makeRandomCluster, pollRandomCluster } from "../collector/random-clusters";

/** Broker ids beyond the 10 bits a short list's id took, and lists of up to six of them. */
const wideBrokers = [1, 1024, 3, 5000, 2047, 7, 65_536];

/** The cluster polled twice: once left with its rows, once with every topic's partitions array made. */
async function pollTwice(seed: number, brokers?: readonly number[]): Promise<{ rows: ClusterSnapshot; arrays: ClusterSnapshot }> {
  const cluster = makeRandomCluster(seed, "", false, brokers);
  const rows = await pollRandomCluster(cluster);
  const arrays = await pollRandomCluster(cluster);
  for (const t of arrays.topics) expect(t.partitions).toBeDefined();
  return { rows, arrays };
}

/** What the rows of `cluster` hold that the writer treats apart, counted into `seen`. */
function countCases(cluster: ClusterSnapshot, seen: Map<string, number>): void {
  const note = (name: string, yes: boolean) => seen.set(name, (seen.get(name) ?? 0) + (yes ? 1 : 0));
  const withRows = cluster.topics.filter((t) => findTopicRows(t) !== undefined);
  note("more than 8 topics with rows (a column, one run)", withRows.length > 8);
  for (const topic of withRows) {
    const { rows, from, to } = findTopicRows(topic)!;
    for (let at = from; at < to; at++) {
      const rare = rows.rare.get(at);
      note("previousEpochEnd", rare?.previousEpochEnd !== undefined);
      note("eligibleLeaderReplicas", rare?.eligibleLeaderReplicas !== undefined);
      note("both rare fields", rare?.previousEpochEnd !== undefined && rare.eligibleLeaderReplicas !== undefined);
      note("offset beyond 2^53", rows.isInexact(at));
      note("null log end", Number.isNaN(rows.logEnd[at]!));
      note("error", rows.errorOf(at) !== null);
      note("no leader", rows.leaderOf(at) === null);
      for (let k = 0; k < 3; k++) note("list of more than 3 ids", rows.countList(at, k) > 3);
      const ids = rows.ids.subarray(rows.listStart[at * 3]!, rows.listStart[at * 3 + 3]!);
      note("id of 1,024 or more", ids.some((id) => id >= 1024));
    }
  }
}

describe("serveClusterRows", () => {
  it.each([
    ["brokers 1 to 5", undefined],
    ["wide broker ids", wideBrokers],
  ])("encodes a cluster's rows byte for byte as its made partition states, making none (%s)", async (_, brokers) => {
    const seen = new Map<string, number>();
    for (let seed = 1; seed <= 300; seed++) {
      const { rows, arrays } = await pollTwice(seed, brokers);
      countCases(rows, seen);
      const made = countClusterPartitionArraysMade();
      const served = encodeColumnar({ clusters: serveClusterRows([rows]) });
      expect(countClusterPartitionArraysMade()).toBe(made);
      expect(served.equals(encodeColumnar({ clusters: [arrays] })), `seed ${seed}`).toBe(true);
    }
    // Brokers 1 to 5 make no id of 1,024 or more.
    for (const [name, count] of seen) if (brokers !== undefined || !name.includes("1,024")) expect(count, name).toBeGreaterThan(0);
  }, 30_000);

  it("encodes many clusters in one column as their made states, with topics of either kind mixed", async () => {
    const rows: ClusterSnapshot[] = [];
    const arrays: ClusterSnapshot[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const polled = await pollTwice(seed, seed % 2 === 0 ? wideBrokers : undefined);
      // Every third cluster's first topic read already (its rows dropped), as a page or rule would.
      if (seed % 3 === 0 && polled.rows.topics.length > 0) expect(polled.rows.topics[0]!.partitions).toBeDefined();
      rows.push(polled.rows);
      arrays.push(polled.arrays);
    }
    const served = encodeColumnar({ clusters: serveClusterRows(rows) });
    const expected = encodeColumnar({ clusters: arrays });
    expect(served.equals(expected)).toBe(true);
    expect(decodeColumnar(served)).toStrictEqual(decodeColumnar(expected));
  });

  it("copies a topic whose keys are not the poll's (other order, one more, one undefined) key by key", async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const { rows, arrays } = await pollTwice(seed);
      // The poll's topics (one literal each), and every other one with its keys in another order, or more of them.
      const reshape = (topic: TopicState, i: number): TopicState => {
        if (i % 2 === 0) return topic;
        const { name, topicId, internal, configs, partitions } = topic;
        if (i % 3 === 0) return { partitions, name, topicId, internal, configs };
        const note = i % 5 === 0 ? { note: undefined } : { note: "kept" };
        return { name, topicId, internal, configs, partitions, ...note };
      };
      const reshaped: TopicState[] = rows.topics.map((topic, i) => {
        const found = findTopicRows(topic);
        const copy = reshape({ ...topic, partitions: [] }, i);
        if (found !== undefined) definePartitionsFromRows(copy, found.rows, found.topic);
        return copy;
      });
      const served = encodeColumnar({ clusters: serveClusterRows([{ ...rows, topics: reshaped }]) });
      const expected = encodeColumnar({ clusters: [{ ...arrays, topics: arrays.topics.map(reshape) }] });
      expect(served.equals(expected), `seed ${seed}`).toBe(true);
    }
  });
});
