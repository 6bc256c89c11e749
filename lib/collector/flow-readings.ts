import type { ConnectConfig } from "@/lib/config";
import { extractRootCause, getMirrorSourceOffsets, toConnectEndpoint } from "@/lib/connect";
import type { Connector, MirrorSourceOffset } from "@/lib/connect/types";
import type { ClusterReader, FetchedRecord } from "@/lib/kafka";
import {
  applyStatusRecord,
  type ConnectorStatusView,
  createStatusTable,
  decodeAll,
  decodeCheckpoint,
  decodeConnectStatus,
  decodeHeartbeat,
  decodeMirrorSourcePosition,
  decodeOffsetSync,
  listConnectorStatuses,
  nameDedicatedModeTopics,
  type StatusTable,
  type SyncPoint,
} from "@/lib/mm2";
import { describeError } from "./cluster-poll";
import type { FlowDefinition } from "./flow-discovery";
import type { FlowReadings } from "./flow-builder";
import { listTakingConnectors } from "./flow-membership";
import { countMalformed } from "./malformed-records";
import { internPartitionName } from "./partition-keys";
import { SyncHistoryStore } from "./sync-history-store";
import { tailPartition, type TailPosition } from "./topic-tail";
import { type CheckpointPoint, type ClusterSnapshot, type CopierChange, type DedicatedModeStatus, flowPartitionKey } from "./types";

/** Offset syncs kept in memory per partition (the store keeps the same bound). */
export const maxSyncsInMemory = 20_000;

/** State the collector carries between cycles for the flows' internal topics. */
export interface FlowTailState {
  tails: Map<string, TailPosition>;
  /** Every flow's offset syncs, per `flowPartitionKey`, bounded at `maxSyncsInMemory` a partition. */
  syncHistory: SyncHistoryStore;
  checkpoints: Map<string, CheckpointPoint>;
  heartbeats: Map<string, number>;
  dedicatedPositions: Map<string, Map<string, bigint>>;
  /** Dedicated mode: each flow's status table, and the connectors as of its newest complete read. */
  statusTables: Map<string, { table: StatusTable; complete: Connector[] }>;
  /** Dedicated mode: each flow's connector configs, and a copy as of the newest complete read (dedicated-configs.ts). */
  configTables: Map<string, { table: Map<string, Record<string, string>>; complete: ReadonlyMap<string, Readonly<Record<string, string>>> | null }>;
  malformed: Record<string, number>;
  /** Flows split over several source connectors: which one copies each partition, and their last offsets. */
  copiers: Map<string, Map<string, CopierMark>>;
}

/** What the last cycle credited one partition of a split flow to (creditCopiers). */
export interface CopierMark {
  connector: string;
  /** Each connector's stored offset (last copied upstream offset) as of the last cycle that read them. */
  offsets: ReadonlyMap<string, bigint>;
  change: CopierChange | null;
}

/** How long a partition's copier change is shown after it was seen (its re-copy or skip is judged meanwhile). */
export const copierChangeHoldMs = 10 * 60_000;

export function createFlowTailState(syncHistory = new SyncHistoryStore(maxSyncsInMemory)): FlowTailState {
  return {
    tails: new Map(),
    syncHistory,
    checkpoints: new Map(),
    heartbeats: new Map(),
    dedicatedPositions: new Map(),
    statusTables: new Map(),
    configTables: new Map(),
    malformed: {},
    copiers: new Map(),
  };
}

export interface FlowReadContext {
  readers: ReadonlyMap<string, ClusterReader>;
  clusters: ReadonlyMap<string, ClusterSnapshot>;
  connect: readonly ConnectConfig[];
  /**
   * MM2's positions by connector, per Connect cluster read from its internal topics this cycle (connect-topics.ts):
   * null while the offsets topic was never read to its end, with what this cycle could not read.
   */
  connectTopicPositions?: ReadonlyMap<string, ConnectTopicPositions>;
  state: FlowTailState;
  now: number;
  /** Called with new syncs per partition, so the store can persist them. */
  onSyncs?: (flow: string, topic: string, partition: number, syncs: SyncPoint[]) => void;
  onCheckpoints?: (flow: string, checkpoints: CheckpointPoint[]) => void;
}

/** MM2's source positions by connector from a Connect cluster's offsets topic, and what this cycle could not read. */
export interface ConnectTopicPositions {
  positions: ReadonlyMap<string, readonly MirrorSourceOffset[]> | null;
  error: string | null;
}

/** What tailing an internal topic needs. */
export type TailContext = Pick<FlowReadContext, "readers" | "clusters" | "state">;

/**
 * Reads what MM2 itself says about a flow this cycle: its positions (Connect REST
 * `GET /connectors/{name}/offsets`, or the dedicated-mode offsets topic), new offset syncs,
 * checkpoints and heartbeats (tailed incrementally). Failures are collected, never thrown.
 */
export async function readFlow(def: FlowDefinition, ctx: FlowReadContext): Promise<FlowReadings> {
  const errors: string[] = [];
  // Positions and syncs failures are kept apart: they make partitions unknown (partition-unknown.ts).
  const positionErrors: string[] = [];
  const syncErrors: string[] = [];
  const copiers = new Map<string, CopierMark>();
  const byConnector = new Map<string, string>();
  const [positions, dedicatedStatus] = await Promise.all([
    readPositions(def, ctx, positionErrors, copiers, byConnector),
    readDedicatedStatus(def, ctx),
    readSyncs(def, ctx, syncErrors),
    readCheckpoints(def, ctx, errors),
    readHeartbeats(def, ctx, errors),
  ]);
  if (def.configReadError) errors.push(def.configReadError);
  if (dedicatedStatus?.error) errors.push(dedicatedStatus.error);
  const prefix = `${def.id}|`;
  return {
    positions,
    ...(copiers.size > 0 ? { copiers } : {}),
    syncHistory: ctx.state.syncHistory,
    checkpoints: [...ctx.state.checkpoints].filter(([k]) => k.startsWith(prefix)).map(([, v]) => v),
    latestHeartbeat: ctx.state.heartbeats.get(def.id) ?? null,
    failures: {
      positionsError: joinErrors(positionErrors),
      syncsError: joinErrors(syncErrors),
      ...(byConnector.size > 0 ? { positionsErrorsByConnector: byConnector } : {}),
    },
    errors: [...positionErrors, ...byConnector.values(), ...syncErrors, ...errors],
    ...(dedicatedStatus ? { dedicatedStatus } : {}),
  };
}

/**
 * Dedicated mode: folds what is new in MM2's status topic (`mm2-status.<source>.internal` on the
 * target, all its partitions) into the flow's status table. The states shown are those of the
 * newest cycle that read every partition to the log end it saw: a first read of a long topic can
 * take several cycles, and a task's old FAILED must not pass for its state now.
 */
async function readDedicatedStatus(def: FlowDefinition, ctx: FlowReadContext): Promise<DedicatedModeStatus | null> {
  if (def.discoveredFrom !== "dedicated-topics") return null;
  const topic = nameDedicatedModeTopics(def.source).status;
  const held = ctx.state.statusTables.get(def.id) ?? { table: createStatusTable(), complete: [] };
  ctx.state.statusTables.set(def.id, held);
  const target = ctx.clusters.get(def.target);
  const partitions = target?.topics.find((t) => t.name === topic)?.partitions ?? [];
  const errors: string[] = [];
  if (!target?.reachable || target.stale) errors.push(`${def.target} was not read this cycle`);
  else if (partitions.length === 0) errors.push("no such topic");
  for (const p of partitions) {
    const records = await tail(ctx, def.target, topic, p.partition, errors);
    const decoded = decodeAll(records, decodeConnectStatus);
    countMalformed(ctx, { cluster: def.target, topic, partition: p.partition }, records, decoded);
    for (const record of decoded.decoded) applyStatusRecord(held.table, record);
    const next = ctx.state.tails.get(`${def.target}/${topic}/${p.partition}`)?.next ?? null;
    if (p.logEnd === null || next === null || next < p.logEnd) errors.push(`partition ${p.partition} not read to its end`);
  }
  if (errors.length === 0) held.complete = listConnectorStatuses(held.table).map(toConnector);
  return {
    topic,
    connectors: held.complete,
    error: errors.length > 0 ? `MM2 task states from ${def.target}/${topic}: ${[...new Set(errors)].join("; ")}` : null,
  };
}

/** A dedicated herder's connector as Connect's REST API would show it (its name is its class's simple name). */
function toConnector(view: ConnectorStatusView): Connector {
  return {
    name: view.name,
    type: "source",
    connectorClass: `org.apache.kafka.connect.mirror.${view.name}`,
    state: view.state,
    workerId: view.workerId,
    trace: view.trace,
    rootCause: extractRootCause(view.trace),
    tasks: view.tasks.map((t) => ({
      id: t.id,
      state: t.state,
      workerId: t.workerId,
      trace: t.trace,
      rootCause: extractRootCause(t.trace),
    })),
    config: {},
  };
}

async function readPositions(
  def: FlowDefinition,
  ctx: FlowReadContext,
  errors: string[],
  copiers: Map<string, CopierMark>,
  byConnector: Map<string, string>,
): Promise<Map<string, bigint> | null> {
  if (def.connectors.sources.length > 0 && def.connectCluster) {
    // Split flows: a connector whose positions were not read makes only its own partitions unknown.
    const split = def.connectors.sources.length > 1;
    const read = await readConnectPositions(def, ctx, split ? (name, error) => byConnector.set(name, error) : (_name, error) => errors.push(error));
    if (read.every((r) => r === null) && !split) return null;
    if (split) return creditCopiers(def, read, ctx, copiers);
    const positions = new Map<string, bigint>();
    for (const o of read[0]?.offsets ?? []) if (o.cluster === def.source) positions.set(internPartitionName(o.topic, o.partition), o.offset);
    return positions;
  }
  if (!def.positionsTopic) return null;
  const positions = ctx.state.dedicatedPositions.get(def.id) ?? new Map<string, bigint>();
  ctx.state.dedicatedPositions.set(def.id, positions);
  const target = ctx.clusters.get(def.target);
  const topic = target?.topics.find((t) => t.name === def.positionsTopic);
  for (const p of topic?.partitions ?? []) {
    const records = await tail(ctx, def.target, def.positionsTopic, p.partition, errors);
    const decoded = decodeAll(records, decodeMirrorSourcePosition);
    countMalformed(ctx, { cluster: def.target, topic: def.positionsTopic, partition: p.partition }, records, decoded);
    for (const d of decoded.decoded) {
      if (d.cluster !== def.source) continue;
      if (d.offset === null) positions.delete(internPartitionName(d.topic, d.partition));
      else positions.set(internPartitionName(d.topic, d.partition), d.offset);
    }
  }
  return positions;
}

/**
 * Each source connector's stored positions, read on the connector's own Connect cluster: from Connect's offsets topic
 * when this cycle read that cluster from its internal topics (only once it was read to its end: a partial read would
 * show positions older than they are), else `GET /connectors/{name}/offsets`. A connector whose positions are
 * unknown is null, with why in `errors`.
 */
async function readConnectPositions(def: FlowDefinition, ctx: FlowReadContext, fail: (connector: string, error: string) => void) {
  const clusterOf = (name: string) => def.connectors.sourceClusters?.[name] ?? def.connectCluster!;
  return Promise.all(
    def.connectors.sources.map(async (name) => {
      // A deleted connector has no offsets to ask for: its partitions keep their last positions (creditCopiers).
      if (def.connectorMissing?.connectors.includes(name)) return null;
      const connectCluster = clusterOf(name);
      const fromTopics = ctx.connectTopicPositions?.get(connectCluster);
      if (fromTopics) {
        if (fromTopics.error) fail(name, `MM2 positions of ${name} from Connect's offsets topic (${connectCluster}): ${fromTopics.error}`);
        return fromTopics.positions === null ? null : { name, offsets: fromTopics.positions.get(name) ?? [] };
      }
      const connect = ctx.connect.find((c) => c.name === connectCluster);
      if (!connect?.url) return null;
      try {
        return { name, offsets: await getMirrorSourceOffsets(toConnectEndpoint({ ...connect, url: connect.url }), name) };
      } catch (err) {
        fail(name, `MM2 positions from Connect (${name} on ${connectCluster}): ${describeError(err)}`);
        return null;
      }
    }),
  );
}

/**
 * A flow split over several source connectors: each partition credited to the connector MM2 really copies it with,
 * its position that connector's alone (Connect's offsets are per connector; a topic moved from one connector's
 * filter to another's keeps the old connector's offsets, which MM2 no longer uses). Of the connectors whose filter
 * takes the topic: the one whose offset moved since the last cycle (the last cycle's copier first), else the last
 * cycle's copier, else the most advanced that holds offsets, else the first by name (membership's choice, no
 * position yet). A change of copier because the one before no longer takes the topic (it moved) is kept on the
 * partition for `copierChangeHoldMs` with the position that connector had reached: the new one starts from no offsets
 * of its own, i.e. from its `auto.offset.reset`.
 * A connector whose offsets were not read this cycle keeps its offsets from the last read.
 */
function creditCopiers(
  def: FlowDefinition,
  read: readonly ({ name: string; offsets: readonly MirrorSourceOffset[] } | null)[],
  { state, now, clusters }: Pick<FlowReadContext, "state" | "now" | "clusters">,
  copiers: Map<string, CopierMark>,
): Map<string, bigint> {
  const source = clusters.get(def.source);
  const stateOf = (topic: string, partition: string) =>
    source?.topics.find((t) => t.name === topic)?.partitions.find((p) => String(p.partition) === partition);
  const last = state.copiers.get(def.id) ?? new Map<string, CopierMark>();
  const held = new Map<string, Map<string, bigint>>();
  const unread = new Set(def.connectors.sources.filter((_, i) => read[i] === null));
  for (const r of read) {
    for (const o of r?.offsets ?? []) {
      if (o.cluster !== def.source) continue;
      const key = internPartitionName(o.topic, o.partition);
      const offsets = held.get(key) ?? new Map<string, bigint>();
      offsets.set(r!.name, o.offset);
      held.set(key, offsets);
    }
  }
  for (const [key, mark] of last) {
    const offsets = held.get(key) ?? new Map<string, bigint>();
    for (const name of unread) if (mark.offsets.has(name) && !offsets.has(name)) offsets.set(name, mark.offsets.get(name)!);
    held.set(key, offsets);
  }
  const positions = new Map<string, bigint>();
  // Partitions no connector takes this cycle keep their mark: a topic moved in two steps (out of A's filter, then
  // into B's, with a cycle between) is still a move from A.
  const kept = new Map<string, CopierMark>();
  // A topic's partitions share their filter verdicts: judged once per topic and cycle.
  const takersByTopic = new Map<string, string[]>();
  for (const [key, offsets] of held) {
    const topic = key.slice(0, key.lastIndexOf("/"));
    let takers = takersByTopic.get(topic);
    if (takers === undefined) takersByTopic.set(topic, (takers = listTakingConnectors(def, topic)));
    if (takers.length === 0) {
      const before = last.get(key);
      if (before !== undefined) kept.set(key, before);
      continue;
    }
    // A deleted connector (kept in the flow, MM2_CONNECTOR_MISSING) copies nothing: another that takes the topic does.
    const running = takers.filter((name) => !def.connectorMissing?.connectors.includes(name));
    const candidates = running.length > 0 ? running : takers;
    const before = last.get(key);
    const connector = chooseCopier(candidates, offsets, before);
    const previous = before?.change ?? null;
    let change = previous !== null && now - previous.at < copierChangeHoldMs ? previous : null;
    // A change is a move only when the connector before no longer takes the topic: among connectors that all take it
    // (an overlap, or heartbeats, which every MirrorSourceConnector copies) the credit may pass from one to another.
    if (before !== undefined && before.connector !== connector && !takers.includes(before.connector)) {
      const fromOffset = before.offsets.get(before.connector);
      const p = stateOf(topic, key.slice(key.lastIndexOf("/") + 1));
      const fromPosition = fromOffset === undefined ? null : fromOffset + 1n;
      change = { from: before.connector, fromPosition, logStartAtChange: p?.logStart ?? null, logEndAtChange: p?.logEnd ?? null, at: now };
    }
    copiers.set(key, { connector, offsets, change });
    const offset = offsets.get(connector);
    if (offset !== undefined) positions.set(key, offset);
  }
  state.copiers.set(def.id, kept.size === 0 ? copiers : new Map([...kept, ...copiers]));
  return positions;
}

function chooseCopier(takers: readonly string[], offsets: ReadonlyMap<string, bigint>, before: CopierMark | undefined): string {
  const moved = takers.filter((name) => offsets.has(name) && before?.offsets.get(name) !== offsets.get(name));
  if (before !== undefined && moved.length > 0) return moved.includes(before.connector) ? before.connector : mostAdvanced(moved, offsets);
  if (before !== undefined && takers.includes(before.connector)) return before.connector;
  const holding = takers.filter((name) => offsets.has(name));
  return holding.length > 0 ? mostAdvanced(holding, offsets) : takers[0]!;
}

function mostAdvanced(names: readonly string[], offsets: ReadonlyMap<string, bigint>): string {
  return names.reduce((best, name) => (offsets.get(name)! > offsets.get(best)! ? name : best));
}

async function readSyncs(def: FlowDefinition, ctx: FlowReadContext, errors: string[]): Promise<void> {
  const records = await tail(ctx, def.offsetSyncs.cluster, def.offsetSyncs.topic, 0, errors);
  const decoded = decodeAll(records, decodeOffsetSync);
  countMalformed(ctx, { cluster: def.offsetSyncs.cluster, topic: def.offsetSyncs.topic, partition: 0 }, records, decoded);
  const fresh = new Map<string, SyncPoint[]>();
  for (const s of decoded.decoded) {
    const key = flowPartitionKey(def.id, s.topic, s.partition);
    const list = fresh.get(key) ?? [];
    list.push({ upstream: s.upstream, downstream: s.downstream });
    fresh.set(key, list);
  }
  for (const [key, syncs] of fresh) {
    try {
      ctx.state.syncHistory.append(key, syncs);
    } catch (err) {
      // An offset beyond 2^53 (OffsetBeyondExactError): the partition's syncs are not read, and the flow says why.
      errors.push(describeError(err));
      continue;
    }
    const [, topic, partition] = key.split("|") as [string, string, string];
    ctx.onSyncs?.(def.id, topic, Number(partition), syncs);
  }
}

async function readCheckpoints(def: FlowDefinition, ctx: FlowReadContext, errors: string[]): Promise<void> {
  const records = await tail(ctx, def.target, def.checkpointsTopic, 0, errors);
  const added: CheckpointPoint[] = [];
  const bad = { malformed: 0, malformedAt: [] as number[], lastError: null as string | null };
  // One record at a time: each checkpoint keeps its own record's timestamp even when a malformed
  // or foreign record before it is dropped.
  for (const [index, record] of records.entries()) {
    const decoded = decodeAll([record], decodeCheckpoint);
    if (decoded.malformed > 0) {
      bad.malformed += 1;
      bad.malformedAt.push(index);
      bad.lastError = decoded.lastError;
    }
    for (const c of decoded.decoded) {
      const topic = def.policy.kind === "identity" ? c.topic : (def.policy.upstreamTopic(c.topic) ?? c.topic);
      const point: CheckpointPoint = { group: c.group, topic, partition: c.partition, upstream: c.upstream, downstream: c.downstream, at: record.timestamp };
      ctx.state.checkpoints.set(`${def.id}|${c.group}|${topic}|${c.partition}`, point);
      added.push(point);
    }
  }
  countMalformed(ctx, { cluster: def.target, topic: def.checkpointsTopic, partition: 0 }, records, bad);
  if (added.length) ctx.onCheckpoints?.(def.id, added);
}

async function readHeartbeats(def: FlowDefinition, ctx: FlowReadContext, errors: string[]): Promise<void> {
  // Only the newest heartbeat matters: start near the end on first read.
  const records = await tail(ctx, def.target, def.heartbeatsTopic, 0, errors, (start, end) => (end - 50n > start ? end - 50n : start));
  const decoded = decodeAll(records, decodeHeartbeat);
  countMalformed(ctx, { cluster: def.target, topic: def.heartbeatsTopic, partition: 0 }, records, decoded);
  for (const h of decoded.decoded) {
    if (h.timestampMs > (ctx.state.heartbeats.get(def.id) ?? 0)) ctx.state.heartbeats.set(def.id, h.timestampMs);
  }
}

export async function tail(
  ctx: TailContext,
  cluster: string,
  topic: string,
  partition: number,
  errors: string[],
  startAt?: (logStart: bigint, logEnd: bigint) => bigint,
): Promise<FetchedRecord[]> {
  const reader = ctx.readers.get(cluster);
  const snapshot = ctx.clusters.get(cluster);
  const p = snapshot?.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partition === partition);
  if (!reader || !snapshot?.reachable || !p) return [];
  const key = `${cluster}/${topic}/${partition}`;
  const position = ctx.state.tails.get(key) ?? { next: null };
  ctx.state.tails.set(key, position);
  try {
    const result = await tailPartition(reader, topic, partition, position, { logStart: p.logStart, logEnd: p.logEnd }, { startAt });
    if (result.error) errors.push(`reading ${cluster}/${result.error}`);
    return result.records;
  } catch (err) {
    errors.push(`reading ${cluster}/${topic}/${partition}: ${describeError(err)}`);
    return [];
  }
}

function joinErrors(errors: readonly string[]): string | null {
  return errors.length > 0 ? errors.join("; ") : null;
}
