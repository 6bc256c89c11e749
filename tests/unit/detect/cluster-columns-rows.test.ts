import { describe, expect, it } from "vitest";
import { countClusterPartitionArraysMade } from "@/lib/collector/cluster-partition-rows";
import { readClusterColumns, readClusterLogs } from "@/lib/detect/cluster-columns";
import { makeRandomCluster, pollRandomCluster } from "../collector/random-clusters";

describe("the clusters' columns over the cluster poll's rows", () => {
  it("are the columns of the made partition arrays, without making them (random clusters)", async () => {
    const before = countClusterPartitionArraysMade();
    for (let seed = 1; seed <= 300; seed++) {
      const cluster = makeRandomCluster(seed);
      const rows = await pollRandomCluster(cluster);
      const arrays = await pollRandomCluster(cluster);
      for (const t of arrays.topics) expect(t.partitions).toBeDefined();
      const made = countClusterPartitionArraysMade();
      expect(readClusterColumns(rows), `seed ${seed}`).toStrictEqual(readClusterColumns(arrays));
      expect(readClusterLogs(rows), `seed ${seed}`).toStrictEqual(readClusterLogs(arrays));
      expect(countClusterPartitionArraysMade()).toBe(made);
    }
    expect(countClusterPartitionArraysMade()).toBeGreaterThan(before);
  });
});
