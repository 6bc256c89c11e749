import { describe, expect, it } from "vitest";
import { shapePartitionRows } from "@/lib/views/topic";
import { plainTopicName, shapeTopicPageData, shellTopicPlaceholder, topicPageDataPath } from "@/lib/views/topic-page-data";
import { unpackPartitionRows } from "@/lib/views/topic-row-columns";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

describe("shapeTopicPageData", () => {
  const flow = makeFlow({
    partitions: [
      makeFlowPartition({ partition: 1, lag: 1200n }),
      makeFlowPartition({ partition: 0, lag: 34n }),
      makeFlowPartition({ partition: 2, lag: null }),
      makeFlowPartition({ topic: "payments", partition: 0, lag: 5n }),
    ],
  });
  const snapshot = makeSnapshot({ flows: [flow], takenAt: T0 });

  it("holds the header's figures (what the page showed) and the rows of the table, as columns", () => {
    const data = shapeTopicPageData(snapshot, flow, "orders")!;
    expect(data).toMatchObject({ topic: "orders", takenAt: T0, target: flow.target, partitions: 3, lag: "1,234" });
    expect(data.targetTopic).toBe(flow.partitions[0]!.targetTopic);
    expect(unpackPartitionRows(data.rows)).toEqual(shapePartitionRows(snapshot, flow, "orders"));
    expect(data.rows.partition).toEqual([0, 1, 2]);
  });

  it("is made once per topic and snapshot, and null for a topic the flow does not list (the page's 404)", () => {
    expect(shapeTopicPageData(snapshot, flow, "orders")).toBe(shapeTopicPageData(snapshot, flow, "orders"));
    expect(shapeTopicPageData(snapshot, flow, "gone")).toBeNull();
  });

  it("names its URL under the flow's topic, and a placeholder that is a plain topic name", () => {
    expect(topicPageDataPath("east->west", "orders")).toBe("/api/flows/east-%3Ewest/topics/orders/page-data");
    expect(plainTopicName.test(shellTopicPlaceholder)).toBe(true);
    expect(plainTopicName.test("or ders")).toBe(false);
  });
});
