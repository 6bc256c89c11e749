import { describe, expect, it } from "vitest";
import { countClusterPartitionArraysMade } from "@/lib/collector/cluster-partition-rows";
import type { ClusterSnapshot } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { serveClusterRows } from "@/lib/pipeline/served-clusters";
import { makeRandomCluster, pollRandomCluster } from "../collector/random-clusters";

/** The cluster polled twice: once left with its rows, once with every topic's partitions array made. */
async function pollTwice(seed: number): Promise<{ rows: ClusterSnapshot; arrays: ClusterSnapshot }> {
  const cluster = makeRandomCluster(seed);
  const rows = await pollRandomCluster(cluster);
  const arrays = await pollRandomCluster(cluster);
  for (const t of arrays.topics) expect(t.partitions).toBeDefined();
  return { rows, arrays };
}

describe("serveClusterRows", () => {
  it("encodes a cluster's rows byte for byte as its made partition states, making none (random clusters)", async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { rows, arrays } = await pollTwice(seed);
      const made = countClusterPartitionArraysMade();
      const served = encodeColumnar({ clusters: serveClusterRows([rows]) });
      expect(countClusterPartitionArraysMade()).toBe(made);
      expect(served.equals(encodeColumnar({ clusters: [arrays] })), `seed ${seed}`).toBe(true);
    }
  });

  it("encodes many clusters in one column as their made states, with topics of either kind mixed", async () => {
    const rows: ClusterSnapshot[] = [];
    const arrays: ClusterSnapshot[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const polled = await pollTwice(seed);
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
});
