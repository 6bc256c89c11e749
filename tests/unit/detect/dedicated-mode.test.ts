import { describe, expect, it } from "vitest";
import type { DedicatedModeStatus, Flow, FlowPartition } from "@/lib/collector/types";
import type { Connector } from "@/lib/connect/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlow, makeFlowPartition, makeSnapshot, makeTask, runCycles, T0 } from "./fixtures";

/**
 * Dedicated-mode MM2 (no Connect REST): TASK_FAILED and the stall verdict read the connector and
 * task states the collector folded from `mm2-status.east.internal` (Flow.dedicatedStatus).
 */
const WORKER = "localhost/east->west/cdaaf182-dbc9-4b0d-81ad-5a128ec81868";
const TRACE = [
  "org.apache.kafka.connect.errors.ConnectException: OffsetOutOfRangeException",
  "Caused by: org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position FetchPosition{offset=1200} is out of range for partition orders-2",
].join("\n");
const ROOT_CAUSE = "org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position FetchPosition{offset=1200} is out of range for partition orders-2";

/** A dedicated herder's connector (named by class) as the collector builds it from the status topic. */
function mirror(name: string, state: string, tasks: Connector["tasks"] = [makeTask(0, { workerId: WORKER })]): Connector {
  return { name, type: "source", connectorClass: `org.apache.kafka.connect.mirror.${name}`, state, workerId: WORKER, trace: null, rootCause: null, tasks, config: {} };
}

function status(connectors: Connector[], error: string | null = null): DedicatedModeStatus {
  return { topic: "mm2-status.east.internal", connectors, error };
}

/** east->west found from its topics: no Connect cluster, no connector names from a config. */
function dedicatedFlow(dedicatedStatus: DedicatedModeStatus, partitions: FlowPartition[] = [makeFlowPartition({ sourceConnector: null })]): Flow {
  return makeFlow({
    discoveredFrom: "dedicated-topics",
    connectors: { connectCluster: null, source: null, sources: [], checkpoint: null, heartbeat: null },
    partitions,
    dedicatedStatus,
  });
}

const running = () => [mirror("MirrorSourceConnector", "RUNNING"), mirror("MirrorCheckpointConnector", "RUNNING", []), mirror("MirrorHeartbeatConnector", "RUNNING")];

/** MM2 sits at 100 while the source grows, one cycle per 65 s, with the given status in each cycle. */
function stuck(statuses: DedicatedModeStatus[]) {
  return statuses.map((s, i) => ({
    snapshot: makeSnapshot({ cycle: i + 1, connect: [], flows: [dedicatedFlow(s, [makeFlowPartition({ sourceConnector: null, sourceLogEnd: 200n + BigInt(i) * 100n, mm2Position: 100n })])] }),
    now: T0 + i * 65_000,
  }));
}

describe("dedicated-mode MM2: task states from its status topic", () => {
  it("TASK_FAILED for a FAILED task of the source connector, critical, with its root cause and the status topic", () => {
    const source = mirror("MirrorSourceConnector", "RUNNING", [makeTask(0, { state: "FAILED", workerId: WORKER, trace: TRACE, rootCause: ROOT_CAUSE })]);
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [], flows: [dedicatedFlow(status([source, mirror("MirrorHeartbeatConnector", "FAILED", [])]))] }) }]);
    expect(findingsOf(output, FindingType.TASK_FAILED).map((f) => [f.key, f.severity, f.flow, f.summary, f.evidence])).toEqual([
      [
        "TASK_FAILED|east->west|MirrorSourceConnector|0",
        "critical",
        "east->west",
        `Task 0 of MM2 source connector MirrorSourceConnector (flow east->west, dedicated mode) FAILED on ${WORKER}: ${ROOT_CAUSE}`,
        { statusTopic: "mm2-status.east.internal", connector: "MirrorSourceConnector", role: "source", taskId: 0, state: "FAILED", workerId: WORKER, rootCause: ROOT_CAUSE },
      ],
      [
        "TASK_FAILED|east->west|MirrorHeartbeatConnector",
        "warning",
        "east->west",
        `MM2 heartbeat connector MirrorHeartbeatConnector (flow east->west, dedicated mode) FAILED on ${WORKER}: no trace reported`,
        { statusTopic: "mm2-status.east.internal", connector: "MirrorHeartbeatConnector", role: "heartbeat", taskId: null, state: "FAILED", workerId: WORKER, rootCause: null },
      ],
    ]);
  });

  it("nothing fails while every connector and task is RUNNING", () => {
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [], flows: [dedicatedFlow(status(running()))] }) }]);
    expect(findingsOf(output, FindingType.TASK_FAILED)).toEqual([]);
  });

  it("TASK_STALLED once stallAfterMs passed while the status topic says RUNNING", () => {
    const outputs = runCycles(stuck([status(running()), status(running()), status(running())]));
    expect(findingsOf(outputs[1], FindingType.TASK_STALLED)).toEqual([]);
    expect(findingsOf(outputs[2], FindingType.TASK_STALLED).map((f) => [f.key, f.evidence.partitions, f.evidence.stalledForMs, f.evidence.pendingRecords])).toEqual([
      ["TASK_STALLED|east->west", "orders/2", 130_000, "300"],
    ]);
  });

  it("no stall while MM2 is stopped: the connector UNASSIGNED (its task's same-generation UNASSIGNED ignored) stops the clock", () => {
    const stopped = status([mirror("MirrorSourceConnector", "UNASSIGNED"), mirror("MirrorHeartbeatConnector", "UNASSIGNED", [makeTask(0, { state: "UNASSIGNED" })])]);
    const outputs = runCycles(stuck([status(running()), stopped, stopped]));
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.TASK_STALLED))).toEqual([]);
    expect(outputs[2]?.memory.positions["east->west|orders|2"]).toMatchObject({ position: "100", movedAt: T0, notRunningMs: 130_000 });
  });

  it("no verdict while the status topic was not read completely: the clock stops as when Connect does not answer", () => {
    const unread = status(running(), "MM2 task states from west/mm2-status.east.internal: partition 3 not read to its end");
    const outputs = runCycles(stuck([status(running()), unread, unread]));
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.TASK_STALLED))).toEqual([]);
    expect(outputs[2]?.memory.positions["east->west|orders|2"]).toMatchObject({ notRunningMs: 130_000 });
  });

  it("no verdict before the status topic holds a status for MirrorSourceConnector (MM2 starting)", () => {
    const outputs = runCycles(stuck([status([]), status([]), status([])]));
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.TASK_STALLED))).toEqual([]);
  });
});
