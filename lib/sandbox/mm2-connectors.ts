import { type ConnectEndpoint, type Connector, getConnectors, putConnectorConfig } from "@/lib/connect";
import { sleep } from "./processes";
import { fetchLogEnds } from "./topics";

/** `replicationFactor`: of the topics MM2 creates on that cluster (default 1, a single broker). */
export interface FlowClusters {
  source: { alias: string; bootstrap: string; replicationFactor?: number };
  target: { alias: string; bootstrap: string; replicationFactor?: number };
}

/** Connector names of one MM2 flow in the sandbox. */
export function connectorNames(source: string, target: string) {
  return {
    source: `mm2-${source}-${target}-source`,
    checkpoint: `mm2-${source}-${target}-checkpoint`,
    heartbeat: `mm2-${source}-${target}-heartbeat`,
    /** Emits heartbeats on the *source* cluster, so the flow replicates them as `<source>.heartbeats`. */
    upstreamHeartbeat: `mm2-${target}-${source}-heartbeat`,
  };
}

function commonConfig(flow: FlowClusters): Record<string, string> {
  return {
    "source.cluster.alias": flow.source.alias,
    "target.cluster.alias": flow.target.alias,
    "source.cluster.bootstrap.servers": flow.source.bootstrap,
    "target.cluster.bootstrap.servers": flow.target.bootstrap,
    "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    // Target topics, checkpoints and heartbeats live on the target; the offset syncs on the source.
    "replication.factor": String(flow.target.replicationFactor ?? 1),
    "offset-syncs.topic.replication.factor": String(flow.source.replicationFactor ?? 1),
    "checkpoints.topic.replication.factor": String(flow.target.replicationFactor ?? 1),
    "heartbeats.topic.replication.factor": String(flow.target.replicationFactor ?? 1),
    "sync.topic.acls.enabled": "false",
    "sync.topic.configs.enabled": "true",
  };
}

/** MirrorSourceConnector config for the sandbox flow; `extra` lets scenarios add or override keys. */
export function sourceConnectorConfig(flow: FlowClusters, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...commonConfig(flow),
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "tasks.max": "1",
    topics: ".*",
    // MM2's default excludes, plus the benchmark's scale topics (npm run bench creates thousands)
    // and those a dedicated-mode MM2 copies between the same clusters (dedicated-mm2.ts).
    "topics.exclude": ".*[\\-\\.]internal, .*\\.replica, __.*, bench-.*, dedicated-.*",
    "refresh.topics.interval.seconds": "5",
    ...extra,
  };
}

/**
 * What MirrorSourceConnector needs to run exactly-once on a worker with
 * `exactly.once.source.support=enabled`: Connect requires the connector's support
 * (`exactly.once.support=required`), which MM2 grants only when its source consumer reads
 * committed records (MirrorSourceConnector.exactlyOnceSupport). Records and MM2's positions are
 * then written in one transaction: the target holds transaction markers.
 */
export const exactlyOnceSourceConfig: Readonly<Record<string, string>> = {
  "exactly.once.support": "required",
  "consumer.isolation.level": "read_committed",
};

export function checkpointConnectorConfig(flow: FlowClusters): Record<string, string> {
  return {
    ...commonConfig(flow),
    "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
    "tasks.max": "1",
    groups: ".*",
    "emit.checkpoints.interval.seconds": "5",
    "refresh.groups.interval.seconds": "5",
    "sync.group.offsets.enabled": "true",
    "sync.group.offsets.interval.seconds": "5",
  };
}

export function heartbeatConnectorConfig(flow: FlowClusters): Record<string, string> {
  return {
    ...commonConfig(flow),
    "connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
    "emit.heartbeats.interval.seconds": "1",
  };
}

/**
 * A heartbeat connector for the reverse direction whose producer writes to the source cluster,
 * as a reverse MM2 flow would: the forward flow then replicates `heartbeats` to
 * `<source>.heartbeats` on the target, whose newest timestamp gives the end-to-end latency.
 */
export function upstreamHeartbeatConnectorConfig(flow: FlowClusters): Record<string, string> {
  const reversed = { source: flow.target, target: flow.source };
  return {
    ...heartbeatConnectorConfig(reversed),
    "producer.override.bootstrap.servers": flow.source.bootstrap,
  };
}

/** Creates (or updates) the four connectors of a flow; callers wait with `waitForConnectorsRunning`. */
export async function createFlowConnectors(endpoint: ConnectEndpoint, flow: FlowClusters): Promise<void> {
  const names = connectorNames(flow.source.alias, flow.target.alias);
  await putConnectorConfig(endpoint, names.source, sourceConnectorConfig(flow));
  await putConnectorConfig(endpoint, names.checkpoint, checkpointConnectorConfig(flow));
  await putConnectorConfig(endpoint, names.heartbeat, heartbeatConnectorConfig(flow));
  await putConnectorConfig(endpoint, names.upstreamHeartbeat, upstreamHeartbeatConnectorConfig(flow));
}

/**
 * Waits until each named connector is RUNNING with at least one task, all RUNNING. (The
 * checkpoint connector has no task until a group with committed offsets exists, so callers that
 * need it running pass `allowNoTasks`.)
 */
export async function waitForConnectorsRunning(
  endpoint: ConnectEndpoint,
  names: string[],
  timeoutMs = 120_000,
  allowNoTasks: string[] = [],
): Promise<Connector[]> {
  const deadline = Date.now() + timeoutMs;
  let last: Connector[] = [];
  while (Date.now() < deadline) {
    try {
      last = (await getConnectors(endpoint)).filter((c) => names.includes(c.name));
      const ready = names.every((name) => {
        const c = last.find((x) => x.name === name);
        if (!c || c.state !== "RUNNING") return false;
        if (c.tasks.length === 0) return allowNoTasks.includes(name);
        return c.tasks.every((t) => t.state === "RUNNING");
      });
      if (ready) return last;
    } catch {
      // Connect may briefly answer 409 during a rebalance; keep waiting.
    }
    await sleep(1000);
  }
  const states = last.map((c) => `${c.name}: ${c.state} [${c.tasks.map((t) => `${t.id}=${t.state}${t.rootCause ? ` (${t.rootCause})` : ""}`).join(", ")}]`);
  throw new Error(`MM2 connectors not RUNNING after ${timeoutMs / 1000}s: ${states.join("; ") || "none found"}`);
}

/**
 * Waits until each flow has copied at least one heartbeat: `<source>.heartbeats` (MM2's default replication policy)
 * has records on the flow's target. The upstream heartbeat connector writes one a second on the source, so this
 * proves the flow's source task reads, writes and creates remote topics, without producing anything ourselves.
 */
export async function waitForHeartbeatsCopied(flows: readonly FlowClusters[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const waiting = new Set(flows);
  let last = "";
  while (waiting.size > 0) {
    for (const flow of [...waiting]) {
      const copied = await fetchLogEnds(flow.target.bootstrap, `${flow.source.alias}.heartbeats`).then(
        (ends) => [...ends.values()].some((e) => e.high > 0n),
        (err: unknown) => ((last = err instanceof Error ? err.message : String(err)), false),
      );
      if (copied) waiting.delete(flow);
    }
    if (waiting.size === 0) return;
    if (Date.now() > deadline) {
      const names = [...waiting].map((f) => `${f.source.alias} -> ${f.target.alias}`).join(", ");
      throw new Error(`MM2 copied no heartbeat for ${names} within ${timeoutMs / 1000}s${last ? ` (last error: ${last})` : ""}`);
    }
    await sleep(1000);
  }
}
