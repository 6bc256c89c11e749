import { ConnectorState, type Connector } from "@/lib/connect/types";
import { findConnectorFlow } from "./task-failed";
import { formatDuration, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

const roleByClass: Record<string, "source" | "checkpoint" | "heartbeat"> = {
  MirrorSourceConnector: "source",
  MirrorCheckpointConnector: "checkpoint",
  MirrorHeartbeatConnector: "heartbeat",
};

/** Connector states an operator sets on purpose: their tasks are not expected to run. */
const onPurpose: ReadonlySet<string> = new Set([ConnectorState.PAUSED, ConnectorState.STOPPED]);

/**
 * TASK_NOT_RUNNING — an MM2 connector or task is UNASSIGNED or RESTARTING for longer than
 * `thresholds.notRunningAfterMs`: no worker runs it (its worker left the group and the rebalance waits
 * `scheduled.rebalance.max.delay.ms`, a stuck rebalance, a restart that never completes). MM2 copies nothing for
 * it, and the stall clock stops (task-stalled.ts), so without this only lag warnings would remain.
 *
 * LOGIC — per reachable Connect cluster (an unreachable one is unknown: earlier findings are carried), per MM2
 * connector (by flow, or class org.apache.kafka.connect.mirror.Mirror*Connector):
 * - connector PAUSED or STOPPED (on purpose): nothing; FAILED states are TASK_FAILED's;
 * - the connector, and each task, UNASSIGNED or RESTARTING without a break since `notRunningSince` (the collector's
 *   first cycle that saw it so, connect-poll.ts) for ≥ notRunningAfterMs → `TASK_NOT_RUNNING|<connect>|<connector>`
 *   or `…|<taskId>`, with the state, the worker and how long;
 * - severity: critical for a source connector (replication stopped), warning for checkpoint and heartbeat.
 * A restart through REST (POST …/restart?includeTasks=true) passes through RESTARTING for seconds: below the threshold.
 */
export function detectTasksNotRunning(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const connect of ctx.current.connect) {
    const since = connect.notRunningSince;
    if (!connect.reachable || since === undefined) continue;
    for (const connector of connect.connectors) {
      const byClass = roleByClass[connector.connectorClass.split(".").at(-1) ?? ""];
      const role = findConnectorFlow(ctx.current, connect.name, connector.name)?.role ?? byClass;
      if (role === undefined || onPurpose.has(connector.state) || connector.state === ConnectorState.FAILED) continue;
      const parts: { taskId: number | null; state: string; workerId: string }[] = [
        { taskId: null, state: connector.state, workerId: connector.workerId },
        ...connector.tasks.map((t) => ({ taskId: t.id, state: t.state, workerId: t.workerId })),
      ];
      for (const part of parts) {
        const first = since[part.taskId === null ? connector.name : `${connector.name}|${part.taskId}`];
        if (first === undefined || ctx.now - first < ctx.thresholds.notRunningAfterMs) continue;
        findings.push(createFinding(ctx, connect.name, connector, role, { ...part, since: first }));
      }
    }
  }
  return findings;
}

function createFinding(
  ctx: DetectorContext,
  connectCluster: string,
  connector: Connector,
  role: "source" | "checkpoint" | "heartbeat",
  part: { taskId: number | null; state: string; workerId: string; since: number },
): Finding {
  const flow = findConnectorFlow(ctx.current, connectCluster, connector.name)?.flowId;
  const named = `MM2 ${role} connector ${connector.name}`;
  const subject = part.taskId === null ? named : `Task ${part.taskId} of ${named}`;
  const worker = part.workerId === "" ? "no worker" : `worker ${part.workerId}`;
  const effect = role === "source" ? "nothing is copied for it" : role === "checkpoint" ? "no offsets are translated" : "no heartbeats";
  return {
    key: [FindingType.TASK_NOT_RUNNING, connectCluster, connector.name, ...(part.taskId === null ? [] : [String(part.taskId)])].join("|"),
    type: FindingType.TASK_NOT_RUNNING,
    severity: role === "source" ? Severity.CRITICAL : Severity.WARNING,
    ...(flow === undefined ? {} : { flow }),
    summary:
      `${subject}${flow === undefined ? "" : ` (flow ${flow})`} has been ${part.state} on ${worker} for ` +
      `${formatDuration(ctx.now - part.since)}, not paused or stopped: ${effect}`,
    evidence: {
      connectCluster,
      connector: connector.name,
      role,
      taskId: part.taskId,
      state: part.state,
      workerId: part.workerId,
      notRunningSince: part.since,
      notRunningForMs: ctx.now - part.since,
      notRunningAfterMs: ctx.thresholds.notRunningAfterMs,
    },
    observedAt: ctx.now,
  };
}
