import { findConnectCluster, listConnectClusters } from "@/lib/collector/connector-clusters";
import type { Flow, Snapshot } from "@/lib/collector/types";
import { type Connector, ConnectorState } from "@/lib/connect/types";
import { formatAge } from "@/lib/format";
import type { ReadinessRule, ReadinessStatus } from "../readiness-rule";
import { describeFirstProblem, makeOutcome, pickWorstStatus } from "./outcome";

/**
 * Every MM2 connector of the flow RUNNING with at least one task, all RUNNING. The source
 * connector copies the data (not ready without it); the checkpoint connector translates the
 * groups' offsets and the heartbeat connector proves the flow alive (degraded without them).
 */
export const connectorsCheck: ReadinessRule = {
  id: "connectors",
  title: "MM2 connectors",
  check: ({ snapshot, flow }) => {
    const found = findFlowConnectors(snapshot, flow);
    if (found.kind === "unknown") return makeOutcome("unknown", found.why);
    const roles = listConnectorRoles(flow);
    const problems: { status: ReadinessStatus; text: string }[] = [];
    if (roles.every((r) => r.role !== "source")) {
      problems.push({ status: "not-ready", text: "no MirrorSourceConnector copies this flow" });
    }
    for (const { name, role, missing } of roles) {
      if (name === null) {
        if (role !== "source") problems.push({ status: missing, text: `no ${role} connector (${describeLoss(role)})` });
        continue;
      }
      const problem = describeConnectorProblem(found.connectors.find((c) => c.name === name));
      if (problem !== null) problems.push({ status: missing, text: `${name} (${role}): ${problem}` });
    }
    if (problems.length === 0) return makeOutcome("ok", `every connector RUNNING (${found.where})`);
    const items = problems.map((p) => ({ text: p.text, ref: { kind: "connect" as const } }));
    return makeOutcome(pickWorstStatus(problems.map((p) => p.status)), describeFirstProblem(problems), items);
  },
};

interface ConnectorRole {
  name: string | null;
  role: "source" | "checkpoint" | "heartbeat";
  missing: ReadinessStatus;
}

function describeLoss(role: "checkpoint" | "heartbeat"): string {
  return role === "checkpoint" ? "groups' offsets are not translated" : "no liveness signal";
}

/** The flow's connectors by role; dedicated-mode MM2 names them by class (MirrorHerder.configureConnectors). */
function listConnectorRoles(flow: Flow): ConnectorRole[] {
  if (flow.discoveredFrom === "dedicated-topics") {
    return [
      { name: "MirrorSourceConnector", role: "source", missing: "not-ready" },
      { name: "MirrorCheckpointConnector", role: "checkpoint", missing: "degraded" },
      { name: "MirrorHeartbeatConnector", role: "heartbeat", missing: "degraded" },
    ];
  }
  return [
    ...flow.connectors.sources.map((name): ConnectorRole => ({ name, role: "source", missing: "not-ready" })),
    { name: flow.connectors.checkpoint, role: "checkpoint", missing: "degraded" },
    { name: flow.connectors.heartbeat, role: "heartbeat", missing: "degraded" },
  ];
}

type FoundConnectors = { kind: "known"; connectors: Connector[]; where: string } | { kind: "unknown"; why: string };

function findFlowConnectors(snapshot: Snapshot, flow: Flow): FoundConnectors {
  if (flow.discoveredFrom === "dedicated-topics") {
    const status = flow.dedicatedStatus;
    if (status === undefined) return { kind: "unknown", why: "dedicated-mode MM2: its connector states were not read" };
    if (status.error !== null) {
      return { kind: "unknown", why: `dedicated-mode MM2: ${status.topic} unreadable (${status.error})` };
    }
    return { kind: "known", connectors: status.connectors, where: `dedicated mode, ${status.topic}` };
  }
  // A flow's source connectors can run on several Connect clusters: each is read on its own.
  const found: Connector[] = [];
  const names = listConnectClusters(flow.connectors);
  for (const name of names.length > 0 ? names : [null]) {
    const connect = snapshot.connect.find((c) => c.name === name);
    if (connect === undefined) return { kind: "unknown", why: `Connect cluster ${name ?? "?"} is not configured` };
    if (!connect.reachable) {
      const age =
        connect.dataAt === null ? "never read" : `last read ${formatAge(snapshot.takenAt - connect.dataAt)} ago`;
      const why = `Connect ${connect.name} did not answer (${connect.error ?? "no answer"}; ${age})`;
      return { kind: "unknown", why };
    }
    found.push(...connect.connectors.filter((c) => findConnectCluster(flow.connectors, c.name) === connect.name));
  }
  return { kind: "known", connectors: found, where: `Connect ${names.join(", ")}` };
}

function describeConnectorProblem(connector: Connector | undefined): string | null {
  if (connector === undefined) return "missing";
  if (connector.state !== ConnectorState.RUNNING) return `connector ${connector.state}`;
  if (connector.tasks.length === 0) return "RUNNING with no task (copies nothing)";
  const bad = connector.tasks.filter((t) => t.state !== ConnectorState.RUNNING);
  return bad.length === 0 ? null : `task ${bad.map((t) => `${t.id} ${t.state}`).join(", ")}`;
}
