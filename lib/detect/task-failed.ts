import { findConnectCluster } from "@/lib/collector/connector-clusters";
import type { Snapshot } from "@/lib/collector/types";
import { ConnectorState, type Connector, type TaskStatus } from "@/lib/connect/types";
import type { DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/** Which part of MM2 a connector is; a failed source connector stops replication itself. */
export const ConnectorRole = {
  SOURCE: "source",
  CHECKPOINT: "checkpoint",
  HEARTBEAT: "heartbeat",
} as const;
export type ConnectorRoleName = (typeof ConnectorRole)[keyof typeof ConnectorRole];

const roleByClass: Record<string, ConnectorRoleName> = {
  MirrorSourceConnector: ConnectorRole.SOURCE,
  MirrorCheckpointConnector: ConnectorRole.CHECKPOINT,
  MirrorHeartbeatConnector: ConnectorRole.HEARTBEAT,
};

/**
 * TASK_FAILED — an MM2 connector or one of its tasks is FAILED (Connect does not restart it).
 *
 * LOGIC — per reachable Connect cluster (an unreachable one is not judged; its earlier findings are
 * carried while stale), per MM2 connector (class org.apache.kafka.connect.mirror.Mirror*Connector
 * or named by a flow):
 * - connector state FAILED → one finding `TASK_FAILED|<connect>|<connector>`;
 * - each task in state FAILED → one finding `TASK_FAILED|<connect>|<connector>|<taskId>`;
 * - severity: critical for a source connector (replication stopped), warning for checkpoint
 *   (no offset translation: failover re-reads) and heartbeat connectors (no latency signal).
 * The summary ends with the root cause (the last `Caused by:` line of the trace).
 * Dedicated-mode MM2 (no Connect REST): the same rule over the states its status topic holds
 * (detectDedicatedTaskFailures).
 */
export function detectTaskFailures(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const connect of ctx.current.connect) {
    if (!connect.reachable) continue;
    for (const connector of connect.connectors) {
      const role = resolveRole(ctx.current, connect.name, connector);
      if (role === null) continue;
      if (connector.state === ConnectorState.FAILED) findings.push(createFailure(ctx, connect.name, connector, role, null));
      for (const task of connector.tasks) {
        if (task.state === ConnectorState.FAILED) findings.push(createFailure(ctx, connect.name, connector, role, task));
      }
    }
  }
  return [...findings, ...detectDedicatedTaskFailures(ctx)];
}

/**
 * Dedicated-mode flows: each FAILED connector or task in `mm2-status.<source>.internal` →
 * `TASK_FAILED|<flow>|<connector>[|<taskId>]`, severity by class as above. The states are those of
 * the collector's newest complete read of the topic, so a FAILED seen before stays while the topic
 * cannot be read (unknown is not healthy) and a half-read topic raises nothing.
 */
function detectDedicatedTaskFailures(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const flow of ctx.current.flows) {
    const status = flow.dedicatedStatus;
    if (status === undefined) continue;
    for (const connector of status.connectors) {
      const role = roleByClass[connector.name];
      if (role === undefined) continue;
      const failedTasks = connector.tasks.filter((t) => t.state === ConnectorState.FAILED);
      for (const task of [...(connector.state === ConnectorState.FAILED ? [null] : []), ...failedTasks]) {
        const subject = task === null
          ? `MM2 ${role} connector ${connector.name}`
          : `Task ${task.id} of MM2 ${role} connector ${connector.name}`;
        const workerId = task === null ? connector.workerId : task.workerId;
        const rootCause = task === null ? connector.rootCause : task.rootCause;
        findings.push({
          key: [FindingType.TASK_FAILED, flow.id, connector.name, ...(task === null ? [] : [String(task.id)])].join("|"),
          type: FindingType.TASK_FAILED,
          severity: role === ConnectorRole.SOURCE ? Severity.CRITICAL : Severity.WARNING,
          flow: flow.id,
          summary: `${subject} (flow ${flow.id}, dedicated mode) FAILED on ${workerId}: ${rootCause ?? "no trace reported"}`,
          evidence: {
            statusTopic: status.topic,
            connector: connector.name,
            role,
            taskId: task?.id ?? null,
            state: ConnectorState.FAILED,
            workerId,
            rootCause,
          },
          observedAt: ctx.now,
        });
      }
    }
  }
  return findings;
}

/** The flow whose connector this is, if any. */
export function findConnectorFlow(snapshot: Snapshot, connectCluster: string, connector: string): { flowId: string; role: ConnectorRoleName } | null {
  for (const flow of snapshot.flows) {
    const c = flow.connectors;
    if (c.sources.includes(connector) && [connectCluster, null].includes(findConnectCluster(c, connector))) return { flowId: flow.id, role: ConnectorRole.SOURCE };
    if (c.connectCluster !== null && c.connectCluster !== connectCluster) continue;
    if (c.checkpoint === connector) return { flowId: flow.id, role: ConnectorRole.CHECKPOINT };
    if (c.heartbeat === connector) return { flowId: flow.id, role: ConnectorRole.HEARTBEAT };
  }
  return null;
}

function resolveRole(snapshot: Snapshot, connectCluster: string, connector: Connector): ConnectorRoleName | null {
  const byFlow = findConnectorFlow(snapshot, connectCluster, connector.name);
  if (byFlow !== null) return byFlow.role;
  const simpleClass = connector.connectorClass.split(".").at(-1) ?? "";
  return roleByClass[simpleClass] ?? null;
}

function createFailure(ctx: DetectorContext, connectCluster: string, connector: Connector, role: ConnectorRoleName, task: TaskStatus | null): Finding {
  const flow = findConnectorFlow(ctx.current, connectCluster, connector.name)?.flowId;
  const rootCause = (task === null ? connector.rootCause : task.rootCause) ?? "no trace reported";
  const subject = task === null ? `MM2 ${role} connector ${connector.name}` : `Task ${task.id} of MM2 ${role} connector ${connector.name}`;
  const where = flow === undefined ? "" : ` (flow ${flow})`;
  const workerId = task === null ? connector.workerId : task.workerId;
  return {
    key: [FindingType.TASK_FAILED, connectCluster, connector.name, ...(task === null ? [] : [String(task.id)])].join("|"),
    type: FindingType.TASK_FAILED,
    severity: role === ConnectorRole.SOURCE ? Severity.CRITICAL : Severity.WARNING,
    ...(flow === undefined ? {} : { flow }),
    summary: `${subject}${where} FAILED on ${workerId}: ${rootCause}`,
    evidence: {
      connectCluster,
      connector: connector.name,
      connectorClass: connector.connectorClass,
      role,
      taskId: task?.id ?? null,
      state: task?.state ?? connector.state,
      workerId,
      rootCause: task === null ? connector.rootCause : task.rootCause,
    },
    observedAt: ctx.now,
  };
}
