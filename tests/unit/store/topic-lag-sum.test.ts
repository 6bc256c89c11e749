import { describe, expect, it } from "vitest";
import type { Flow } from "@/lib/collector/types";
import { sumLagPerTopic } from "@/lib/store/series";

/** Only the fields sumLagPerTopic reads. */
const flowOf = (partitions: [string, bigint | null][]) => ({ id: "a->b", partitions: partitions.map(([topic, lag]) => ({ topic, lag })) }) as unknown as Flow;

describe("lag per topic", () => {
  it("sums each topic's known lags in the order topics first appear, a topic listed apart summed once, unknown as 0", () => {
    const flow = flowOf([
      ["orders", 3n],
      ["orders", null],
      ["orders", 2n ** 62n],
      ["clicks", null],
      ["audit", 7n],
      ["orders", 2n ** 62n],
    ]);
    expect([...sumLagPerTopic(flow)]).toEqual([
      ["orders", 2n ** 63n + 3n],
      ["clicks", 0n],
      ["audit", 7n],
    ]);
  });
});
