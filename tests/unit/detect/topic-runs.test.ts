import { describe, expect, it } from "vitest";
import type { Flow } from "@/lib/collector/types";
import { readTopicPositions } from "@/lib/detect/cluster-columns";
import { detectPostureRisks } from "@/lib/detect/posture-risks";
import { locateTopicRuns, readTopicRuns } from "@/lib/detect/topic-runs";
import { makeCluster, makeFlow, makeFlowPartition, makeSnapshot, makeTopic, makeTopicConfigs, T0 } from "./fixtures";

/** A flow of its own id listing, in order, each [topic, partition] (target topic: `east.<topic>`). */
function makeRunsFlow(id: string, partitions: [string, number][]): Flow {
  return makeFlow({ id, partitions: partitions.map(([topic, partition]) => makeFlowPartition({ topic, partition, targetTopic: `east.${topic}` })) });
}

describe("readTopicRuns", () => {
  it("lists each run's topic and target topic, and marks a run whose topic an earlier run had", () => {
    const flow = makeRunsFlow("runs-list", [["orders", 0], ["orders", 1], ["payments", 0], ["orders", 2], ["clicks", 0]]);
    const runs = readTopicRuns(flow);
    expect(runs.topics).toEqual(["orders", "payments", "orders", "clicks"]);
    expect(runs.targetTopics).toEqual(["east.orders", "east.payments", "east.orders", "east.clicks"]);
    expect([...runs.repeated]).toEqual([0, 0, 1, 0]);
  });

  it("reads a flow of the same id again when its runs name other topics", () => {
    readTopicRuns(makeRunsFlow("runs-change", [["orders", 0], ["payments", 0]]));
    const renamed = readTopicRuns(makeRunsFlow("runs-change", [["orders", 0], ["refunds", 0]]));
    expect(renamed.topics).toEqual(["orders", "refunds"]);
    expect(renamed.targetTopics).toEqual(["east.orders", "east.refunds"]);
  });
});

describe("locateTopicRuns", () => {
  const east = makeCluster("east", { topics: [makeTopic("payments"), makeTopic("orders"), makeTopic("orders")] });
  const west = makeCluster("west", { topics: [makeTopic("east.orders")] });

  it("finds each run's topic in the source cluster and its target topic in the target, −1 where absent", () => {
    const flow = makeRunsFlow("runs-locate", [["orders", 0], ["payments", 0], ["clicks", 0]]);
    // A repeated name is found at its first topic, as a find by name would.
    expect([...locateTopicRuns(flow, readTopicPositions(east), "source")]).toEqual([1, 0, -1]);
    expect([...locateTopicRuns(flow, readTopicPositions(west), "target")]).toEqual([0, -1, -1]);
  });

  it("keeps the positions for the next cycle's flow with the same runs, and locates again in another cluster map", () => {
    const first = locateTopicRuns(makeRunsFlow("runs-keep", [["orders", 0], ["payments", 0]]), readTopicPositions(east), "source");
    const next = makeRunsFlow("runs-keep", [["orders", 0], ["orders", 1], ["payments", 0]]);
    expect(locateTopicRuns(next, readTopicPositions(east), "source")).toBe(first);
    const renamed = makeCluster("east", { topics: [makeTopic("orders"), makeTopic("payments")] });
    expect([...locateTopicRuns(next, readTopicPositions(renamed), "source")]).toEqual([0, 1]);
  });
});

describe("posture risks over cycles", () => {
  it("judges the drift of the topic a flow lists now, not of the one it listed the cycle before", () => {
    const topic = (name: string, maxMessageBytes = 1_048_588) => makeTopic(name, [{}], { configs: makeTopicConfigs({ minInsyncReplicas: 2, maxMessageBytes }) });
    const clusters = [
      makeCluster("east", { topics: [topic("orders"), topic("payments")] }),
      makeCluster("west", { topics: [topic("east.orders"), topic("east.payments", 1000)] }),
    ];
    const cycle = (name: string) => makeSnapshot({ clusters, flows: [makeFlow({ partitions: [makeFlowPartition({ topic: name, targetTopic: `east.${name}` })] })] });
    expect(detectPostureRisks(cycle("orders"), T0)).toEqual([]);
    expect(detectPostureRisks(cycle("payments"), T0).map((f) => f.key)).toEqual(["TOPIC_DRIFT|east->west|payments"]);
    expect(detectPostureRisks(cycle("orders"), T0)).toEqual([]);
  });
});
