import type { Connector } from "@/lib/connect/types";
import { createDefaultReplicationPolicy, createIdentityReplicationPolicy, locateOffsetSyncsTopic, nameDedicatedModeTopics, nameTargetTopics, type ReplicationPolicy } from "@/lib/mm2";

/** What Gapwatch knows about one MM2 flow before reading any offsets. */
export interface FlowDefinition {
  id: string;
  source: string;
  target: string;
  discoveredFrom: "connect" | "dedicated-topics";
  connectCluster: string | null;
  connectors: { source: string | null; checkpoint: string | null; heartbeat: string | null };
  policy: ReplicationPolicy;
  topicsFilter: string;
  groupsFilter: string;
  offsetSyncs: { cluster: string; topic: string };
  checkpointsTopic: string;
  heartbeatsTopic: string;
  /** Dedicated mode: Connect's offsets topic on the target holding MM2's positions. */
  positionsTopic: string | null;
}

const mirrorClass = {
  source: "MirrorSourceConnector",
  checkpoint: "MirrorCheckpointConnector",
  heartbeat: "MirrorHeartbeatConnector",
} as const;

/** `<source>-><target>`, the flow id used in URLs (URL-encoded there). */
export function formatFlowId(source: string, target: string): string {
  return `${source}->${target}`;
}

/**
 * Finds MM2 flows from the connector configs on Connect: every MirrorSourceConnector defines a
 * flow `source.cluster.alias -> target.cluster.alias`, with its replication policy, separator,
 * topic filter and `offset-syncs.topic.location`; checkpoint and heartbeat connectors with the
 * same aliases join it. Then dedicated-mode MM2 (no public REST API): a topic
 * `mm2-offsets.<source>.internal` on a cluster means a flow from `<source>` to that cluster.
 */
export function discoverFlows(
  connect: readonly { name: string; connectors: readonly Connector[] }[],
  clusters: readonly { alias: string; topicNames: readonly string[] }[],
): FlowDefinition[] {
  const flows = new Map<string, FlowDefinition>();
  for (const cluster of connect) {
    const mirror = cluster.connectors.filter((c) => classKind(c.connectorClass) !== null);
    for (const c of mirror.filter((m) => classKind(m.connectorClass) === "source")) {
      const def = defineFromSourceConnector(cluster.name, c);
      if (def && !flows.has(def.id)) flows.set(def.id, def);
    }
    for (const c of mirror) {
      const kind = classKind(c.connectorClass);
      const id = formatFlowId(c.config["source.cluster.alias"] ?? "source", c.config["target.cluster.alias"] ?? "target");
      const flow = flows.get(id);
      if (!flow || kind === "source" || kind === null) continue;
      if (!flow.connectors[kind]) flow.connectors[kind] = c.name;
      if (kind === "checkpoint") flow.groupsFilter = c.config.groups ?? flow.groupsFilter;
    }
  }
  const aliases = new Set(clusters.map((c) => c.alias));
  for (const cluster of clusters) {
    for (const source of aliases) {
      if (source === cluster.alias) continue;
      const id = formatFlowId(source, cluster.alias);
      const dedicated = nameDedicatedModeTopics(source);
      if (flows.has(id) || !cluster.topicNames.includes(dedicated.offsets)) continue;
      const policy = createDefaultReplicationPolicy();
      flows.set(id, {
        id,
        source,
        target: cluster.alias,
        discoveredFrom: "dedicated-topics",
        connectCluster: null,
        connectors: { source: null, checkpoint: null, heartbeat: null },
        policy,
        topicsFilter: ".*",
        groupsFilter: ".*",
        offsetSyncs: { cluster: source, topic: locateOffsetSyncsTopic(policy, { source, target: cluster.alias }).topic },
        ...targetTopicsOf(policy, source),
        positionsTopic: dedicated.offsets,
      });
    }
  }
  return [...flows.values()].sort((a, b) => a.id.localeCompare(b.id));
}

function defineFromSourceConnector(connectCluster: string, c: Connector): FlowDefinition | null {
  const source = c.config["source.cluster.alias"];
  const target = c.config["target.cluster.alias"];
  if (!source || !target) return null;
  const separator = c.config["replication.policy.separator"] ?? ".";
  const policyClass = c.config["replication.policy.class"] ?? "DefaultReplicationPolicy";
  const policy = policyClass.endsWith("IdentityReplicationPolicy")
    ? createIdentityReplicationPolicy({ separator, sourceClusterAlias: source })
    : createDefaultReplicationPolicy({ separator });
  const location = c.config["offset-syncs.topic.location"] === "target" ? "target" : "source";
  const syncs = locateOffsetSyncsTopic(policy, { source, target, location });
  return {
    id: formatFlowId(source, target),
    source,
    target,
    discoveredFrom: "connect",
    connectCluster,
    connectors: { source: c.name, checkpoint: null, heartbeat: null },
    policy,
    topicsFilter: c.config.topics ?? ".*",
    groupsFilter: ".*",
    offsetSyncs: { cluster: location === "source" ? source : target, topic: syncs.topic },
    ...targetTopicsOf(policy, source),
    positionsTopic: null,
  };
}

function targetTopicsOf(policy: ReplicationPolicy, source: string): { checkpointsTopic: string; heartbeatsTopic: string } {
  const names = nameTargetTopics(policy, source);
  return { checkpointsTopic: names.checkpoints, heartbeatsTopic: names.heartbeats };
}

function classKind(connectorClass: string): keyof typeof mirrorClass | null {
  const simple = connectorClass.split(".").at(-1) ?? "";
  for (const [kind, name] of Object.entries(mirrorClass) as [keyof typeof mirrorClass, string][]) {
    if (simple === name) return kind;
  }
  return null;
}
