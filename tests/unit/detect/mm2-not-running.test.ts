import { describe, expect, it } from "vitest";
import { trackNotRunning } from "@/lib/collector/connect-poll";
import type { ConnectClusterSnapshot } from "@/lib/collector/types";
import type { Connector } from "@/lib/connect/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { FindingType } from "@/lib/detect/types";
import { FLOW, T0, findingsOf, makeConnect, makeConnector, makeFlow, makeFlowPartition, makeSnapshot, makeTask, runCycles } from "./fixtures";

const CYCLE_MS = 10_000;

/**
 * Snapshots every 10 s whose Connect cluster lists `states[i]` in cycle i, each with the not-running clock the
 * collector keeps (connect-poll.ts trackNotRunning threaded from cycle to cycle).
 */
function connectSequence(states: Connector[][], overrides: Partial<ConnectClusterSnapshot>[] = []) {
  let since: Record<string, number> = {};
  return states.map((connectors, i) => {
    const cycle = i + 1;
    const at = T0 + i * CYCLE_MS;
    const reachable = overrides[i]?.reachable ?? true;
    if (reachable) since = trackNotRunning(connectors, since, at);
    return { snapshot: makeSnapshot({ cycle, connect: [makeConnect(connectors, { notRunningSince: since, ...overrides[i] })] }) };
  });
}

const thresholds = { ...defaultThresholds, notRunningAfterMs: 30_000 };
const running = makeConnector();
const unassigned = makeConnector({ tasks: [makeTask(0, { state: "UNASSIGNED", workerId: "10.0.0.9:8083" })] });
const restarting = makeConnector({ tasks: [makeTask(0, { state: "RESTARTING", workerId: "10.0.0.9:8083" })] });

describe("TASK_NOT_RUNNING", () => {
  it("reports a source task UNASSIGNED for the threshold as critical, with the state, the worker and how long", () => {
    const outputs = runCycles(connectSequence([[running], [unassigned], [unassigned], [unassigned], [unassigned]]), thresholds);
    expect(outputs.map((o) => findingsOf(o, FindingType.TASK_NOT_RUNNING).length)).toEqual([0, 0, 0, 0, 1]);
    expect(findingsOf(outputs[4], FindingType.TASK_NOT_RUNNING)[0]).toMatchObject({
      key: "TASK_NOT_RUNNING|connect-1|mm2-source|0",
      severity: "critical",
      flow: FLOW,
      summary: "Task 0 of MM2 source connector mm2-source (flow east->west) has been UNASSIGNED on worker 10.0.0.9:8083 for ~30 s, not paused or stopped: nothing is copied for it",
      evidence: { state: "UNASSIGNED", workerId: "10.0.0.9:8083", notRunningSince: T0 + CYCLE_MS, notRunningForMs: 30_000 },
    });
  });

  it("counts UNASSIGNED and RESTARTING as one not-running spell, and restarts the clock after a RUNNING cycle", () => {
    const bouncing = runCycles(connectSequence([[unassigned], [restarting], [unassigned], [restarting]]), thresholds);
    expect(bouncing.map((o) => findingsOf(o, FindingType.TASK_NOT_RUNNING).map((f) => f.evidence.state))).toEqual([[], [], [], ["RESTARTING"]]);
    const recovered = runCycles(connectSequence([[unassigned], [unassigned], [running], [unassigned], [unassigned]]), thresholds);
    expect(recovered.map((o) => findingsOf(o, FindingType.TASK_NOT_RUNNING).length)).toEqual([0, 0, 0, 0, 0]);
  });

  it("stays quiet for a connector PAUSED or STOPPED on purpose and for a restart through REST that settles", () => {
    const paused = makeConnector({ state: "PAUSED", tasks: [makeTask(0, { state: "UNASSIGNED" })] });
    const stopped = makeConnector({ state: "STOPPED", tasks: [] });
    const onPurpose = runCycles(connectSequence([[paused], [paused], [paused], [stopped], [stopped], [stopped], [stopped]]), thresholds);
    expect(onPurpose.flatMap((o) => findingsOf(o, FindingType.TASK_NOT_RUNNING))).toEqual([]);
    // POST /connectors/mm2-source/restart?includeTasks=true: RESTARTING for a cycle or two, then RUNNING.
    const restartingConnector = makeConnector({ state: "RESTARTING", tasks: [makeTask(0, { state: "RESTARTING" })] });
    const restart = runCycles(connectSequence([[running], [restartingConnector], [restarting], [running], [running], [running]]), thresholds);
    expect(restart.flatMap((o) => o.findings.filter((f) => f.severity === "critical"))).toEqual([]);
  });

  it("rates a checkpoint connector not running as a warning, and carries the verdict while Connect does not answer", () => {
    const checkpoint = makeConnector({ name: "mm2-checkpoint", connectorClass: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector", state: "UNASSIGNED", workerId: "", tasks: [] });
    const outputs = runCycles(
      connectSequence([[running, checkpoint], [running, checkpoint], [running, checkpoint], [running, checkpoint], [], []], [{}, {}, {}, {}, { reachable: false, error: "ECONNREFUSED" }, {}]),
      thresholds,
    );
    expect(findingsOf(outputs[3], FindingType.TASK_NOT_RUNNING).map((f) => [f.key, f.severity, f.summary])).toEqual([
      [
        "TASK_NOT_RUNNING|connect-1|mm2-checkpoint",
        "warning",
        "MM2 checkpoint connector mm2-checkpoint (flow east->west) has been UNASSIGNED on no worker for ~30 s, not paused or stopped: no offsets are translated",
      ],
    ]);
    expect(findingsOf(outputs[4], FindingType.TASK_NOT_RUNNING).map((f) => f.key)).toEqual(["TASK_NOT_RUNNING|connect-1|mm2-checkpoint"]);
    // Connect answers again without the connector: nothing not running is left.
    expect(findingsOf(outputs[5], FindingType.TASK_NOT_RUNNING)).toEqual([]);
  });
});

describe("MM2_CONNECTOR_MISSING", () => {
  it("is critical for a kept flow whose source connector Connect no longer lists, naming it and since when", () => {
    const since = T0 - 200_000;
    const flow = makeFlow({ connectorMissing: { connectors: ["mm2-source"], since }, partitions: [makeFlowPartition({ mm2Position: 100n, sourceLogEnd: 400n })] });
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [makeConnect([])], flows: [flow] }) }]);
    expect(findingsOf(output, FindingType.MM2_CONNECTOR_MISSING)).toEqual([
      {
        key: "MM2_CONNECTOR_MISSING|east->west",
        type: "MM2_CONNECTOR_MISSING",
        severity: "critical",
        flow: FLOW,
        summary:
          "MM2 source connector mm2-source of flow east->west is gone from Connect cluster connect-1 since 2025-01-15 02:56:40 UTC (~3 min): " +
          "nothing is replicated; re-create it, or retire the flow",
        evidence: { connectCluster: "connect-1", connectors: "mm2-source", missingSince: since, missingForMs: 200_000, totalLag: "300" },
        observedAt: T0,
      },
    ]);
    // The stall clock stops while the connector is gone: one alert, not two.
    expect(findingsOf(output, FindingType.TASK_STALLED)).toEqual([]);
  });

  it("names one deleted connector of a split flow alone, with its topics and the connectors still copying", () => {
    const since = T0 - 200_000;
    const flow = makeFlow({
      connectors: { connectCluster: "connect-1", source: "mm2-a", sources: ["mm2-b", "mm2-a"], checkpoint: null, heartbeat: null },
      connectorMissing: { connectors: ["mm2-a"], since },
      partitions: [
        makeFlowPartition({ sourceConnector: "mm2-a", mm2Position: 100n, sourceLogEnd: 400n }),
        makeFlowPartition({ topic: "payments", targetTopic: "east.payments", sourceConnector: "mm2-b" }),
      ],
    });
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [makeConnect([makeConnector({ name: "mm2-b" })])], flows: [flow] }) }]);
    const [finding] = findingsOf(output, FindingType.MM2_CONNECTOR_MISSING);
    expect(finding?.summary).toBe(
      "MM2 source connector mm2-a of flow east->west is gone from Connect cluster connect-1 since 2025-01-15 02:56:40 UTC (~3 min): " +
        "its 1 topic is not replicated (mm2-b still copies the rest); re-create it, or retire the flow if it was removed on purpose " +
        "(the flow stays with mm2-b)",
    );
    expect(finding?.evidence).toMatchObject({ connectCluster: "connect-1", connectors: "mm2-a", topics: "orders" });
  });

  it("is carried, not resolved, while the Connect cluster does not answer, and ends once the flow is retired", () => {
    const missing = makeFlow({ connectorMissing: { connectors: ["mm2-source"], since: T0 - 120_000 } });
    const kept = makeFlow();
    const outputs = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, connect: [makeConnect([])], flows: [missing] }) },
      { snapshot: makeSnapshot({ cycle: 2, connect: [makeConnect([], { reachable: false, error: "ECONNREFUSED" })], flows: [kept] }) },
      { snapshot: makeSnapshot({ cycle: 3, connect: [makeConnect([])], flows: [] }) },
    ]);
    expect(outputs.map((o) => findingsOf(o, FindingType.MM2_CONNECTOR_MISSING).length)).toEqual([1, 1, 0]);
  });
});

describe("MM2_CONNECTOR_MISSING look-alike", () => {
  it("stays quiet for a connector deleted and re-created under its name within the threshold (a redeploy)", () => {
    const gone = (cycle: number) => makeSnapshot({ cycle, connect: [makeConnect([])], flows: [makeFlow({ connectorMissing: { connectors: ["mm2-source"], since: T0 + 10_000 } })] });
    const outputs = runCycles([{ snapshot: makeSnapshot({ cycle: 1 }) }, { snapshot: gone(2) }, { snapshot: gone(3) }, { snapshot: makeSnapshot({ cycle: 4 }) }]);
    expect(outputs.flatMap((o) => o.findings.filter((f) => f.severity === "critical"))).toEqual([]);
  });
});

describe("TASK_STALLED where the position comes from Connect alone", () => {
  it("waits at least twice the Connect cluster's offset flush interval", () => {
    const flush = 150_000;
    const cycles = [0, 200_000, 290_000, 310_000].map((offset, i) => ({
      snapshot: makeSnapshot({
        cycle: i + 1,
        connect: [makeConnect([makeConnector()], { offsetFlushIntervalMs: flush })],
        partitions: [makeFlowPartition({ mm2Position: 100n, committedPosition: 100n, positionSource: "committed", sourceLogEnd: BigInt(200 + i * 10) })],
      }),
      now: T0 + offset,
    }));
    const outputs = runCycles(cycles);
    expect(outputs.map((o) => findingsOf(o, FindingType.TASK_STALLED).length)).toEqual([0, 0, 0, 1]);
    expect(findingsOf(outputs[3], FindingType.TASK_STALLED)[0]?.evidence).toMatchObject({ stallAfterMs: 300_000, stalledForMs: 310_000 });
  });
});
