import type { FlowDefinition } from "./flow-discovery";
import type { ConnectClusterSnapshot } from "./types";

/**
 * A flow Gapwatch once found on a Connect cluster, kept (in the store, across restarts) until an operator retires
 * it: replication stopping entirely (its MirrorSourceConnector deleted) must not read as "nothing to watch".
 */
export interface RetainedFlow {
  id: string;
  connectCluster: string;
  connectors: { sources: string[]; checkpoint: string | null; heartbeat: string | null };
  /** The first source connector's settings flow discovery reads, from an allow-list (never a secret). */
  sourceConfig: Record<string, string>;
  /** Every source connector's settings, by name, from the same allow-list (a split flow keeps each one's filter). */
  sourceConfigs?: Record<string, Record<string, string>>;
  /** The Connect cluster of each source connector on another one than `connectCluster`. */
  sourceClusters?: Record<string, string>;
  /**
   * Source connectors of a flow still found (through its other connectors) that their Connect cluster, answering,
   * no longer lists: since when (epoch ms), by name.
   */
  missingSources?: Record<string, number>;
  /** When a cycle last found the flow's source connector on Connect (epoch ms). */
  lastFoundAt: number;
  /** First cycle its Connect cluster answered without any of its source connectors; null while found or unknown. */
  missingSince: number | null;
}

/** Store key of the retained flows (JSON, written by the collector). */
export const retainedFlowsKey = "collector.retained-flows";
/** Store key of the operators' retire requests (JSON `{ "<flow>": retiredAtMs }`, written by the web server). */
export const retiredFlowsKey = "flows.retired";

/** The connector settings a retained flow keeps: those flow discovery reads (flow-discovery.ts, lib/mm2/topic-filter.ts). */
const keptSettings = [
  "connector.class",
  "source.cluster.alias",
  "target.cluster.alias",
  "replication.policy.class",
  "replication.policy.separator",
  "offset-syncs.topic.location",
  "topics",
  "topics.exclude",
  "topics.blacklist",
  "topic.filter.class",
] as const;

/**
 * What one cycle decided: the definitions of flows kept although Connect no longer lists them, the flows found now
 * (with the source connectors Connect no longer lists kept in them), and the new records.
 */
export interface RetentionResult {
  definitions: FlowDefinition[];
  live: FlowDefinition[];
  retained: Map<string, RetainedFlow>;
}

/**
 * One cycle of retention, pure: every Connect-discovered flow is (re)recorded; a recorded flow not discovered now is
 * kept — marked missing from the first cycle its Connect cluster answered without its source connectors (an
 * unreachable Connect cluster is unknown, not missing) — unless retired: by the config (`retiredByConfig`) or by an
 * operator's request made after the flow was last found (a flow re-created later is watched again).
 * A flow found through some of its source connectors keeps the others the same way (a split flow whose one connector
 * was deleted): each stays in the flow with its filter (its topics stay in the flow, not replicated) and is marked
 * missing from the first cycle its Connect cluster answered without it, until it is listed again or an operator's
 * retire request for the flow is made after it went missing (the connector was removed on purpose).
 * `define` rebuilds a definition from a record (flow-discovery.ts defineRetainedFlow); `keep` adds a kept source
 * connector to a found flow (flow-discovery.ts addKeptSourceConnector).
 */
export function retainFlows(
  discovered: readonly FlowDefinition[],
  connect: readonly ConnectClusterSnapshot[],
  previous: ReadonlyMap<string, RetainedFlow>,
  retired: { requests: ReadonlyMap<string, number>; byConfig: ReadonlySet<string> },
  now: number,
  define: (record: RetainedFlow) => FlowDefinition | null,
  keep: (def: FlowDefinition, name: string, config: Record<string, string>, connectCluster: string) => void = () => undefined,
): RetentionResult {
  const retained = new Map<string, RetainedFlow>();
  const found = new Set<string>();
  const live: FlowDefinition[] = [];
  for (const def of discovered) {
    found.add(def.id);
    const record = recordFlow(def, connect, now);
    const before = previous.get(def.id);
    if (record === null || before === undefined) {
      if (record !== null) retained.set(def.id, record);
      live.push(def);
      continue;
    }
    const kept = keepMissingSources(before, record, connect, retired.requests.get(def.id), now);
    retained.set(def.id, kept.record);
    if (kept.names.length === 0) {
      live.push(def);
      continue;
    }
    const amended: FlowDefinition = { ...def, connectors: { ...def.connectors, sources: [...def.connectors.sources] }, topicFilters: [...def.topicFilters] };
    for (const name of kept.names) keep(amended, name, kept.record.sourceConfigs?.[name] ?? {}, kept.record.sourceClusters?.[name] ?? kept.record.connectCluster);
    const missing = kept.names.filter((n) => kept.record.missingSources?.[n] !== undefined);
    if (missing.length > 0) amended.connectorMissing = { connectors: missing, since: Math.min(...missing.map((n) => kept.record.missingSources![n]!)) };
    live.push(amended);
  }
  const definitions: FlowDefinition[] = [];
  for (const [id, record] of previous) {
    if (found.has(id)) continue;
    const request = retired.requests.get(id);
    if (retired.byConfig.has(id) || (request !== undefined && request >= record.lastFoundAt)) continue;
    const cluster = connect.find((c) => c.name === record.connectCluster);
    const answered = cluster !== undefined && cluster.reachable;
    const missingSince = answered ? (record.missingSince ?? now) : record.missingSince;
    const kept = { ...record, missingSince };
    retained.set(id, kept);
    const def = define(kept);
    if (def === null) continue;
    // Missing is said only while Connect answers; otherwise the flow stays, its connectors unknown.
    definitions.push(answered ? { ...def, connectorMissing: { connectors: [...kept.connectors.sources], since: missingSince ?? now } } : def);
  }
  return { definitions, live, retained };
}

/**
 * The source connectors of `before` a found flow no longer has: kept (in `record`, marked missing while their Connect
 * cluster answers), unless an operator's retire request for the flow came after they went missing.
 */
function keepMissingSources(
  before: RetainedFlow,
  record: RetainedFlow,
  connect: readonly ConnectClusterSnapshot[],
  request: number | undefined,
  now: number,
): { record: RetainedFlow; names: string[] } {
  const names: string[] = [];
  let next = record;
  for (const name of before.connectors.sources) {
    if (record.connectors.sources.includes(name)) continue;
    const cluster = before.sourceClusters?.[name] ?? before.connectCluster;
    const answered = connect.find((c) => c.name === cluster)?.reachable === true;
    const since = before.missingSources?.[name] ?? (answered ? now : undefined);
    if (since !== undefined && request !== undefined && request >= since) continue;
    names.push(name);
    const config = before.sourceConfigs?.[name] ?? (before.connectors.sources[0] === name ? before.sourceConfig : undefined);
    next = {
      ...next,
      connectors: { ...next.connectors, sources: [...next.connectors.sources, name] },
      ...(config !== undefined ? { sourceConfigs: { ...next.sourceConfigs, [name]: config } } : {}),
      ...(cluster !== next.connectCluster ? { sourceClusters: { ...next.sourceClusters, [name]: cluster } } : {}),
      ...(since !== undefined ? { missingSources: { ...next.missingSources, [name]: since } } : {}),
    };
  }
  return { record: next, names };
}

/** The record of a flow found on Connect now; null for a dedicated-mode flow (its own topics keep it). */
function recordFlow(def: FlowDefinition, connect: readonly ConnectClusterSnapshot[], now: number): RetainedFlow | null {
  if (def.discoveredFrom !== "connect" || def.connectCluster === null || def.connectors.source === null) return null;
  const clusterOf = (name: string) => def.connectors.sourceClusters?.[name] ?? def.connectCluster;
  const configOf = (name: string) => keepSettings(connect.find((c) => c.name === clusterOf(name))?.connectors.find((c) => c.name === name)?.config ?? {});
  const sources = [...def.connectors.sources];
  const others = Object.entries(def.connectors.sourceClusters ?? {}).filter(([, cluster]) => cluster !== def.connectCluster);
  return {
    id: def.id,
    connectCluster: def.connectCluster,
    connectors: { sources, checkpoint: def.connectors.checkpoint, heartbeat: def.connectors.heartbeat },
    sourceConfig: configOf(def.connectors.source),
    ...(sources.length > 1 ? { sourceConfigs: Object.fromEntries(sources.map((name) => [name, configOf(name)])) } : {}),
    ...(others.length > 0 ? { sourceClusters: Object.fromEntries(others) } : {}),
    lastFoundAt: now,
    missingSince: null,
  };
}

function keepSettings(config: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const key of keptSettings) {
    const value = config[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

/**
 * The retained flows without the time each was last found: equal for two cycles that changed nothing else (the
 * collector then writes them at most once per `routineWriteMs`, leader-marks.ts).
 */
export function fingerprintRetainedFlows(retained: ReadonlyMap<string, RetainedFlow>): string {
  return JSON.stringify([...retained.values()].map((f) => ({ ...f, lastFoundAt: 0 })));
}

/** Serializes the retained flows for the store. */
export function serializeRetainedFlows(retained: ReadonlyMap<string, RetainedFlow>): string {
  return JSON.stringify({ version: 1, flows: [...retained.values()] });
}

/** Reads the stored retained flows; unreadable text gives none and the reason (the caller logs it). */
export function parseRetainedFlows(text: string | null): { flows: Map<string, RetainedFlow>; error: string | null } {
  if (text === null) return { flows: new Map(), error: null };
  try {
    const parsed = JSON.parse(text) as { version?: unknown; flows?: unknown };
    if (parsed.version !== 1 || !Array.isArray(parsed.flows)) return { flows: new Map(), error: "not version 1 retained flows" };
    const flows = (parsed.flows as RetainedFlow[]).filter((f) => typeof f.id === "string" && typeof f.connectCluster === "string");
    return { flows: new Map(flows.map((f) => [f.id, f])), error: null };
  } catch (err) {
    return { flows: new Map(), error: err instanceof Error ? err.message : String(err) };
  }
}

/** Reads the operators' retire requests (`{ "<flow>": retiredAtMs }`); unreadable text counts as none. */
export function parseRetireRequests(text: string | null): Map<string, number> {
  if (text === null) return new Map();
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return new Map();
    return new Map(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === "number"));
  } catch {
    return new Map();
  }
}

/**
 * Records an operator's request to retire a flow (read by the collector at its next cycle). A read-modify-write of
 * one store value: only web servers write it, one request at a time per admin action.
 */
export async function requestFlowRetirement(
  store: { getValue(name: string): Promise<string | null>; setValue(name: string, value: string): Promise<void> },
  flowId: string,
  now: number,
): Promise<void> {
  const requests = parseRetireRequests(await store.getValue(retiredFlowsKey));
  requests.set(flowId, now);
  await store.setValue(retiredFlowsKey, JSON.stringify(Object.fromEntries(requests)));
}
