import type { ConnectClusterSnapshot, Snapshot } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import type { ConnectEndpoint, Connector } from "@/lib/connect";
import { toConnectEndpoint } from "@/lib/connect";
import { ActionUnavailableError, BadRequestError, NotFoundError } from "@/lib/errors";
import { redactConnectorConfig } from "@/lib/connect/connector-config";
import { filterRows, sortRows, takePage, type ListSpec, type PageRequest, type SortOrder } from "./pagination";

/** Pill tone per Connect state: RUNNING ok, FAILED crit, PAUSED warn, UNASSIGNED/RESTARTING info. */
export type StateTone = "ok" | "crit" | "warn" | "info" | "unknown";

const toneByState: Record<string, StateTone> = { RUNNING: "ok", FAILED: "crit", PAUSED: "warn", STOPPED: "warn", UNASSIGNED: "info", RESTARTING: "info" };

export function toneOfState(state: string): StateTone {
  return toneByState[state] ?? "unknown";
}

export interface TaskView {
  id: number;
  state: string;
  tone: StateTone;
  workerId: string;
  rootCause: string | null;
  trace: string | null;
}

export interface ConnectorView {
  name: string;
  type: string;
  connectorClass: string;
  state: string;
  tone: StateTone;
  workerId: string;
  rootCause: string | null;
  trace: string | null;
  tasks: TaskView[];
}

export interface ConnectClusterView {
  name: string;
  url: string | null;
  /** Where this cycle's states came from: "rest", or "internal-topics" (then `internalTopics` names them). */
  source: "rest" | "internal-topics";
  /** E.g. `west: connect-configs, connect-status, connect-offsets`; null in REST mode. */
  internalTopics: string | null;
  /** Why the REST API was not used (shown beside internal-topics data); null when it was. */
  restError: string | null;
  /** Why a task cannot be restarted from Gapwatch (no REST API configured); null when it can. */
  restartUnavailable: string | null;
  reachable: boolean;
  error: string | null;
  dataAgeMs: number | null;
  connectors: ConnectorView[];
  failedTasks: number;
}

/** Connect clusters with connectors and tasks, state tones and root causes (configs left out: they can hold credentials). */
export function listConnectClusterViews(snapshot: Snapshot, now: number): ConnectClusterView[] {
  return snapshot.connect.map((c) => {
    const connectors = c.connectors.map(reshapeConnector).sort((a, b) => a.name.localeCompare(b.name));
    const topics = c.internalTopics ?? null;
    return {
      name: c.name,
      url: c.url,
      source: c.source ?? "rest",
      internalTopics: topics === null ? null : `${topics.cluster}: ${topics.configs}, ${topics.status}, ${topics.offsets}`,
      restError: c.source === "internal-topics" ? (c.restError ?? null) : null,
      restartUnavailable: c.url === null ? describeRestartUnavailable(c.name) : null,
      reachable: c.reachable,
      error: c.error,
      dataAgeMs: c.dataAt === null ? null : now - c.dataAt,
      connectors,
      failedTasks: connectors.reduce((n, k) => n + k.tasks.filter((t) => t.state === "FAILED").length, 0),
    };
  });
}

function reshapeConnector(c: Connector): ConnectorView {
  return {
    name: c.name,
    type: c.type,
    connectorClass: c.connectorClass,
    state: c.state,
    tone: toneOfState(c.state),
    workerId: c.workerId,
    rootCause: c.rootCause,
    trace: c.trace,
    tasks: c.tasks.map((t) => ({ id: t.id, state: t.state, tone: toneOfState(t.state), workerId: t.workerId, rootCause: t.rootCause, trace: t.trace })).sort((a, b) => a.id - b.id),
  };
}

/** A connector with its tasks is 1–3 KB of JSON (a failed task's trace more): 50 stay under 256 KB unless many failed. */
export const connectorList: ListSpec<"name"> = {
  list: "connectors",
  sorts: ["name"],
  defaultSort: "name",
  defaultLimit: 50,
  maxLimit: 1000,
  query: { pattern: /^[^\u0000-\u001f]{1,255}$/, describe: "part of a connector name (up to 255 characters)" },
};

type ConnectorEntry = { cluster: ConnectClusterSnapshot; connector: Connector };

/** Connect cluster, then connector name: a connector's name is unique within its cluster. */
const connectorOrder: SortOrder<ConnectorEntry> = { keyOf: (e) => [e.cluster.name, e.connector.name], directions: ["asc", "asc"] };

/**
 * GET /api/connect: every Connect cluster (reachability, data age) with the connectors of this page — across clusters,
 * by cluster and name — and their tasks; credentials in configs redacted.
 */
export function pageConnectClusters(snapshot: Snapshot, now: number, request: PageRequest<"name">) {
  const entries = snapshot.connect.flatMap((cluster) => cluster.connectors.map((connector) => ({ cluster, connector })));
  const needle = request.q?.toLowerCase() ?? null;
  const matching = filterRows(sortRows(entries, connectorOrder), needle === null ? null : (e) => e.connector.name.toLowerCase().includes(needle));
  const { items, page } = takePage(matching, connectorOrder, request, entries.length);
  const connect = snapshot.connect.map((c) => ({
    ...c,
    dataAgeMs: c.dataAt === null ? null : now - c.dataAt,
    connectors: items.filter((e) => e.cluster === c).map(({ connector: { config, ...rest } }) => ({ ...rest, config: redactConnectorConfig(config) })),
  }));
  return { connect, page };
}

/**
 * The REST endpoint of a configured Connect cluster by name (404 naming the known ones). A cluster configured with
 * internal topics only has none: 409 saying why, and how to restart the task where MM2 runs.
 */
export function resolveConnectEndpoint(name: string, task?: { connector: string; taskId: number }): ConnectEndpoint {
  const configured = getConfig().connect;
  const found = configured.find((c) => c.name === name);
  if (!found) throw new NotFoundError(`no Connect cluster "${name}" in the config; known: ${configured.map((c) => c.name).join(", ") || "none"}`);
  if (found.url === undefined) throw new ActionUnavailableError(describeRestartUnavailable(name, task));
  return toConnectEndpoint({ ...found, url: found.url });
}

/** Why Gapwatch cannot restart a task of a Connect cluster it reads from internal topics, and what to do instead. */
export function describeRestartUnavailable(cluster: string, task?: { connector: string; taskId: number }): string {
  const target = task ? `${task.connector}:${task.taskId}` : "<connector>:<task id>";
  return (
    `Connect cluster "${cluster}" is read from its internal topics (no url in its config): restarting a task needs ` +
    `Connect's REST API, which Gapwatch cannot reach. Restart it where MM2 runs — on Strimzi: kubectl annotate ` +
    `KafkaMirrorMaker2 <name> "strimzi.io/restart-connector-task=${target}" — or give this Connect cluster a url ` +
    "Gapwatch may reach (docs/connect-without-rest.md)."
  );
}

export function parseTaskIdParam(raw: string): number {
  if (!/^\d{1,6}$/.test(raw)) throw new BadRequestError(`task id must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}
