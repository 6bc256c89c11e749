import { describe, expect, it } from "vitest";
import { defaultThresholds } from "@/lib/config/thresholds";
import { FindingType } from "@/lib/detect/types";
import {
  findingsOf,
  makeCluster,
  makeConnect,
  makeConnector,
  makeFlow,
  makeFlowPartition,
  makeSnapshot,
  makeStaleCluster,
  makeTask,
  makeTopic,
  runCycles,
  T0,
} from "./fixtures";

const ordersAndPayments = [makeTopic("orders", [{ partition: 2 }], { topicId: "id-1" }), makeTopic("payments", [{ partition: 0 }, { partition: 1 }])];
const payments = [0, 1].map((partition) => makeFlowPartition({ topic: "payments", partition, targetTopic: "east.payments", sourceLogEnd: 500n, mm2Position: 500n }));
const excluded = { topic: "payments", reason: "excluded by topics.exclude", heldPositions: 2 };

/** Cycle 1: orders/2 and payments in the flow; cycles 2..n: payments excluded by topics.exclude. */
function leavingCycles(count: number, east = {}): Parameters<typeof runCycles>[0] {
  const before = makeSnapshot({ cycle: 1, east: { topics: ordersAndPayments }, flows: [makeFlow({ partitions: [makeFlowPartition(), ...payments] })] });
  const after = Array.from({ length: count - 1 }, (_, i) =>
    makeSnapshot({ cycle: i + 2, east: { topics: ordersAndPayments, ...east }, flows: [makeFlow({ partitions: [makeFlowPartition()], excludedTopics: [excluded] })] }),
  );
  return [before, ...after].map((snapshot) => ({ snapshot }));
}

describe("TOPIC_LEFT_FLOW", () => {
  it("reports a topic that left the flow once, as an info event naming the reason and the offsets Connect still holds", () => {
    const outputs = runCycles(leavingCycles(4));
    expect(findingsOf(outputs[0], FindingType.TOPIC_LEFT_FLOW)).toEqual([]);
    const findings = findingsOf(outputs[1], FindingType.TOPIC_LEFT_FLOW);
    expect(findings).toEqual([
      {
        key: `TOPIC_LEFT_FLOW|east->west|payments|${T0 + 10_000}`,
        type: "TOPIC_LEFT_FLOW",
        severity: "info",
        flow: "east->west",
        cluster: "east",
        topic: "payments",
        summary: "payments left the flow east->west: excluded by topics.exclude; Connect still holds MM2's offsets for 2 partitions",
        evidence: { reason: "excluded by topics.exclude", partitionsBefore: 2, heldPositions: 2, topicsFilter: ".*", leftAt: T0 + 10_000 },
        observedAt: T0 + 10_000,
      },
    ]);
    // Held like every event (same key, same time), never a second one for the same departure.
    expect(outputs.slice(2).map((o) => findingsOf(o, FindingType.TOPIC_LEFT_FLOW).map((f) => [f.key, f.observedAt]))).toEqual([
      [[`TOPIC_LEFT_FLOW|east->west|payments|${T0 + 10_000}`, T0 + 10_000]],
      [[`TOPIC_LEFT_FLOW|east->west|payments|${T0 + 10_000}`, T0 + 10_000]],
    ]);
  });

  it("stops firing once eventHoldMs has passed since the departure", () => {
    const cycles = leavingCycles(3);
    const late = { ...cycles[2]!, now: T0 + 10_000 + defaultThresholds.eventHoldMs };
    const outputs = runCycles([cycles[0]!, cycles[1]!, late]);
    expect(findingsOf(outputs[2], FindingType.TOPIC_LEFT_FLOW)).toEqual([]);
  });

  it("says nothing when the topic was deleted at the source, or the source cluster's data is stale", () => {
    const deleted = runCycles(leavingCycles(2, { topics: [ordersAndPayments[0]!] }));
    expect(findingsOf(deleted[1], FindingType.TOPIC_LEFT_FLOW)).toEqual([]);
    const cycles = leavingCycles(2);
    const stale = { snapshot: { ...cycles[1]!.snapshot, clusters: [makeStaleCluster("east", { topics: ordersAndPayments }), makeCluster("west")] } };
    expect(findingsOf(runCycles([cycles[0]!, stale])[1], FindingType.TOPIC_LEFT_FLOW)).toEqual([]);
  });

  it("says nothing when the filter that leaves it out cannot be evaluated (no known reason)", () => {
    const cycles = leavingCycles(2);
    const unknown = { snapshot: { ...cycles[1]!.snapshot, flows: [makeFlow({ partitions: [makeFlowPartition()], excludedTopics: [] })] } };
    expect(findingsOf(runCycles([cycles[0]!, unknown])[1], FindingType.TOPIC_LEFT_FLOW)).toEqual([]);
  });

  it("raises no DATA_LOSS and no TASK_STALLED for the departed topic while its source is purged and grows", () => {
    const cycles = leavingCycles(2);
    const purged = [makeTopic("orders", [{ partition: 2 }], { topicId: "id-1" }), makeTopic("payments", [{ partition: 0, logStart: 900n, logEnd: 1000n }, { partition: 1, logStart: 900n, logEnd: 1000n }])];
    const later = [3, 4, 5].map((cycle) => ({
      snapshot: makeSnapshot({ cycle, east: { topics: purged }, flows: [makeFlow({ partitions: [makeFlowPartition()], excludedTopics: [excluded] })] }),
      now: T0 + cycle * 100_000,
    }));
    const outputs = runCycles([...cycles, ...later]);
    const alarms = outputs.flatMap((o) => o.findings.filter((f) => f.topic === "payments").map((f) => f.type));
    expect(alarms).toEqual(["TOPIC_LEFT_FLOW", "TOPIC_LEFT_FLOW", "TOPIC_LEFT_FLOW", "TOPIC_LEFT_FLOW"]);
  });
});

describe("FLOW_CONFIG_WARNING", () => {
  it("is a warning per flow, kind and subject while the setting stays", () => {
    const warning = { kind: "topic-filter" as const, connector: "mm2-source", subject: "com.acme.Filter", message: "mm2-source: custom topic.filter.class com.acme.Filter cannot be evaluated by Gapwatch" };
    const outputs = runCycles([{ snapshot: makeSnapshot({ flows: [makeFlow({ warnings: [warning] })] }) }, { snapshot: makeSnapshot({ cycle: 2 }) }]);
    expect(findingsOf(outputs[0], FindingType.FLOW_CONFIG_WARNING)).toEqual([
      {
        key: "FLOW_CONFIG_WARNING|east->west|topic-filter|mm2-source|com.acme.Filter",
        type: "FLOW_CONFIG_WARNING",
        severity: "warning",
        flow: "east->west",
        cluster: "east",
        summary: "Flow east->west: mm2-source: custom topic.filter.class com.acme.Filter cannot be evaluated by Gapwatch",
        evidence: { kind: "topic-filter", connector: "mm2-source", subject: "com.acme.Filter", connectCluster: "connect-1" },
        observedAt: T0,
      },
    ]);
    expect(findingsOf(outputs[1], FindingType.FLOW_CONFIG_WARNING)).toEqual([]);
  });
});

describe("a flow of several source connectors", () => {
  const split = { source: "mm2-a", sources: ["mm2-a", "mm2-b"], connectCluster: "connect-1", checkpoint: null, heartbeat: null };
  const stuckOn = (sourceConnector: string) =>
    [200n, 300n, 400n].map((logEnd, i) => ({
      snapshot: makeSnapshot({
        cycle: i + 1,
        flows: [makeFlow({ connectors: split, partitions: [makeFlowPartition({ sourceLogEnd: logEnd, mm2Position: 100n, sourceConnector })] })],
        connect: [makeConnect([makeConnector({ name: "mm2-a" }), makeConnector({ name: "mm2-b", state: "PAUSED", tasks: [makeTask(0, { state: "PAUSED" })] })])],
      }),
      now: T0 + i * 65_000,
    }));

  it("judges a stall by the connector that copies the partition", () => {
    expect(findingsOf(runCycles(stuckOn("mm2-b"))[2], FindingType.TASK_STALLED)).toEqual([]);
    expect(findingsOf(runCycles(stuckOn("mm2-a"))[2], FindingType.TASK_STALLED).map((f) => f.evidence.connector)).toEqual(["mm2-a"]);
  });

  it("reports a failed task of any of its source connectors as critical, with the flow", () => {
    const failed = makeConnector({ name: "mm2-b", tasks: [makeTask(3, { state: "FAILED", rootCause: "boom" })] });
    const snapshot = makeSnapshot({ flows: [makeFlow({ connectors: split })], connect: [makeConnect([makeConnector({ name: "mm2-a" }), failed])] });
    expect(findingsOf(runCycles([{ snapshot }])[0], FindingType.TASK_FAILED).map((f) => [f.key, f.severity, f.flow])).toEqual([
      ["TASK_FAILED|connect-1|mm2-b|3", "critical", "east->west"],
    ]);
  });
});
