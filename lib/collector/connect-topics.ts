import type { ConnectConfig } from "@/lib/config";
import { extractRootCause } from "@/lib/connect";
import type { Connector, MirrorSourceOffset } from "@/lib/connect/types";
import type { FetchedRecord } from "@/lib/kafka";
import {
  applyConnectConfigTopicRecord,
  applyStatusRecord,
  type ConnectConfigState,
  createConnectConfigState,
  createStatusTable,
  decodeAll,
  decodeConnectConfigTopicRecord,
  decodeConnectStatus,
  decodeMirrorSourcePosition,
  type StatusTable,
} from "@/lib/mm2";
import type { TailContext } from "./flow-readings";
import { tail } from "./flow-readings";
import { countMalformed, type TailedPartition } from "./malformed-records";
import { internPartitionName } from "./partition-keys";

/** What the collector folds, cycle after cycle, from one Connect cluster's internal topics. */
export interface ConnectTopicsState {
  configs: ConnectConfigState;
  status: StatusTable;
  /** Source positions by connector, then `internPartitionName(topic, partition)`. */
  positions: Map<string, Map<string, MirrorSourceOffset>>;
  /** As of the newest cycle that read all three topics to the log end it saw; null until one did. */
  complete: ConnectTopicsRead | null;
}

/** Connectors as Connect's REST API would list them, and MM2's source positions by connector. */
export interface ConnectTopicsRead {
  connectors: Connector[];
  /** When the read this state is from began (the cycle's time). */
  readAt: number;
  positions: ReadonlyMap<string, readonly MirrorSourceOffset[]>;
}

/** Creates the empty state of one Connect cluster's topics. */
export function createConnectTopicsState(): ConnectTopicsState {
  return { configs: createConnectConfigState(), status: createStatusTable(), positions: new Map(), complete: null };
}

/**
 * Tails a Connect cluster's config, status and offsets topics (every partition; the cluster given by
 * `internalTopics.cluster`) and folds what is new with Connect's own rules (lib/mm2 connect-config-topic.ts,
 * status-records.ts, connect-records.ts). The result is the state as of the newest cycle that read every partition
 * of the three topics to its log end: a first read cut short must not pass for "no connector" or for an old FAILED.
 * `error` says what this cycle could not read.
 */
export async function readConnectTopics(
  config: ConnectConfig,
  state: ConnectTopicsState,
  ctx: TailContext,
  now: number,
): Promise<{ read: ConnectTopicsRead | null; error: string | null }> {
  const topics = config.internalTopics;
  if (!topics) return { read: null, error: "no internalTopics configured" };
  const cluster = ctx.clusters.get(topics.cluster);
  const errors: string[] = [];
  if (!cluster?.reachable || cluster.stale) errors.push(`${topics.cluster} was not read this cycle`);
  const readTopic = async (topic: string, fold: (records: FetchedRecord[], where: TailedPartition) => void) => {
    const partitions = cluster?.topics.find((t) => t.name === topic)?.partitions ?? [];
    if (cluster?.reachable && partitions.length === 0) errors.push(`no topic ${topic} on ${topics.cluster}`);
    for (const p of partitions) {
      const records = await tail(ctx, topics.cluster, topic, p.partition, errors);
      fold(records, { cluster: topics.cluster, topic, partition: p.partition });
      const next = ctx.state.tails.get(`${topics.cluster}/${topic}/${p.partition}`)?.next ?? null;
      if (p.logEnd === null || next === null || next < p.logEnd) errors.push(`${topic}/${p.partition} not read to its end`);
    }
  };
  await Promise.all([
    readTopic(topics.configs, (records, where) => {
      const decoded = decodeAll(records, decodeConnectConfigTopicRecord);
      countMalformed(ctx, where, records, decoded);
      for (const r of decoded.decoded) applyConnectConfigTopicRecord(state.configs, r);
    }),
    readTopic(topics.status, (records, where) => {
      const decoded = decodeAll(records, decodeConnectStatus);
      countMalformed(ctx, where, records, decoded);
      for (const r of decoded.decoded) applyStatusRecord(state.status, r);
    }),
    readTopic(topics.offsets, (records, where) => {
      const decoded = decodeAll(records, decodeMirrorSourcePosition);
      countMalformed(ctx, where, records, decoded);
      for (const d of decoded.decoded) {
        const held = state.positions.get(d.connector) ?? new Map<string, MirrorSourceOffset>();
        const key = internPartitionName(d.topic, d.partition);
        if (d.offset === null) held.delete(key);
        else held.set(key, { cluster: d.cluster, topic: d.topic, partition: d.partition, offset: d.offset });
        state.positions.set(d.connector, held);
      }
    }),
  ]);
  if (errors.length === 0) {
    state.complete = { connectors: listConnectors(state), readAt: now, positions: copyPositions(state.positions) };
  }
  const where = `${topics.cluster}/{${topics.configs},${topics.status},${topics.offsets}}`;
  const error = errors.length > 0 ? `Connect's internal topics ${where}: ${[...new Set(errors)].join("; ")}` : null;
  return { read: state.complete, error };
}

/**
 * The connectors the config topic holds (Connect's REST API lists those), each with its state and tasks from the
 * status topic — every task the status topic holds, as `GET /connectors/{name}/status` shows them — and its target
 * state. A connector without a status record yet is UNKNOWN, as in REST mode when its status is missing.
 */
function listConnectors(state: ConnectTopicsState): Connector[] {
  return [...state.configs.connectors]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, config]) => {
      const status = state.status.connectors.get(name);
      const tasks = [...(state.status.tasks.get(name) ?? [])].sort(([a], [b]) => a - b);
      const connectorClass = config["connector.class"] ?? "unknown";
      return {
        name,
        type: classifyConnector(connectorClass),
        connectorClass,
        state: status?.state ?? "UNKNOWN",
        workerId: status?.workerId ?? "",
        trace: status?.trace ?? null,
        rootCause: extractRootCause(status?.trace),
        tasks: tasks.map(([id, t]) => ({
          id,
          state: t.state,
          workerId: t.workerId,
          trace: t.trace,
          rootCause: extractRootCause(t.trace),
        })),
        config,
        targetState: state.configs.targetStates.get(name) ?? "STARTED",
      };
    });
}

/** MM2's three connectors are source connectors; other classes cannot be told apart without the plugin (REST asks it). */
function classifyConnector(connectorClass: string): string {
  return /(^|\.)Mirror(Source|Checkpoint|Heartbeat)Connector$/.test(connectorClass) ? "source" : "unknown";
}

function copyPositions(positions: ConnectTopicsState["positions"]): Map<string, MirrorSourceOffset[]> {
  return new Map([...positions].map(([connector, held]) => [connector, [...held.values()]]));
}
