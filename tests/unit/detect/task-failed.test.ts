import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeConnect, makeConnector, makeSnapshot, makeTask, runCycles } from "./fixtures";

/** A real MirrorSourceTask failure trace (auto.offset.reset=none after retention deleted records). */
const TRACE = [
  "org.apache.kafka.connect.errors.ConnectException: Unrecoverable exception from producer send callback",
  "\tat org.apache.kafka.connect.runtime.WorkerSourceTask.maybeThrowProducerSendException(WorkerSourceTask.java:312)",
  "Caused by: org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position FetchPosition{offset=1200} is out of range for partition orders-2",
].join("\n");
const ROOT_CAUSE = "org.apache.kafka.clients.consumer.OffsetOutOfRangeException: Fetch position FetchPosition{offset=1200} is out of range for partition orders-2";

describe("TASK_FAILED", () => {
  it("reports a failed task of the source connector with its root cause, as critical", () => {
    const connector = makeConnector({ tasks: [makeTask(0), makeTask(1, { state: "FAILED", trace: TRACE, rootCause: ROOT_CAUSE, workerId: "10.0.0.7:8083" })] });
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [makeConnect([connector])] }) }]);
    const findings = findingsOf(output, FindingType.TASK_FAILED);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: "TASK_FAILED|connect-1|mm2-source|1",
      severity: "critical",
      flow: "east->west",
      summary: `Task 1 of MM2 source connector mm2-source (flow east->west) FAILED on 10.0.0.7:8083: ${ROOT_CAUSE}`,
      evidence: { connectCluster: "connect-1", connector: "mm2-source", role: "source", taskId: 1, state: "FAILED", workerId: "10.0.0.7:8083", rootCause: ROOT_CAUSE },
    });
  });

  it("reports a failed connector and rates checkpoint and heartbeat failures as warnings", () => {
    const checkpoint = makeConnector({
      name: "mm2-checkpoint",
      connectorClass: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
      state: "FAILED",
      rootCause: "java.lang.IllegalStateException: boom",
      tasks: [],
    });
    const heartbeat = makeConnector({ name: "other-heartbeat", connectorClass: "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector", tasks: [makeTask(0, { state: "FAILED" })] });
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [makeConnect([checkpoint, heartbeat])] }) }]);
    expect(findingsOf(output, FindingType.TASK_FAILED).map((f) => [f.key, f.severity, f.flow ?? null, f.evidence.rootCause])).toEqual([
      ["TASK_FAILED|connect-1|mm2-checkpoint", "warning", "east->west", "java.lang.IllegalStateException: boom"],
      ["TASK_FAILED|connect-1|other-heartbeat|0", "warning", null, null],
    ]);
  });

  it("ignores connectors that are not MM2's", () => {
    const sink = makeConnector({ name: "jdbc-sink", connectorClass: "io.confluent.connect.jdbc.JdbcSinkConnector", state: "FAILED" });
    const [output] = runCycles([{ snapshot: makeSnapshot({ connect: [makeConnect([sink])] }) }]);
    expect(findingsOf(output, FindingType.TASK_FAILED)).toEqual([]);
  });

  it("keeps the last verdict while the Connect cluster is unreachable instead of resolving it", () => {
    const failed = makeConnect([makeConnector({ tasks: [makeTask(0, { state: "FAILED", rootCause: ROOT_CAUSE })] })]);
    const [, second, third] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, connect: [failed] }) },
      { snapshot: makeSnapshot({ cycle: 2, connect: [makeConnect([], { reachable: false, error: "ECONNREFUSED" })] }) },
      { snapshot: makeSnapshot({ cycle: 3, connect: [makeConnect([makeConnector()])] }) },
    ]);
    expect(findingsOf(second, FindingType.TASK_FAILED).map((f) => f.key)).toEqual(["TASK_FAILED|connect-1|mm2-source|0"]);
    expect(findingsOf(third, FindingType.TASK_FAILED)).toEqual([]);
  });
});
