import { type ConnectEndpoint, requestConnect } from "./client";
import { extractRootCause } from "./trace";
import type { Connector, MirrorSourceOffset, RawConnectorInfo, RawConnectorOffsets, RawConnectorStatus, RawExpandedConnectors, TaskStatus } from "./types";

/** All connectors with status and config in one request: `GET /connectors?expand=status&expand=info`. */
export async function getConnectors(endpoint: ConnectEndpoint): Promise<Connector[]> {
  const raw = await requestConnect<RawExpandedConnectors>(endpoint, "GET", "/connectors?expand=status&expand=info");
  return Object.entries(raw)
    .map(([name, entry]) => reshapeConnector(name, entry.status, entry.info))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One connector's status: `GET /connectors/{name}/status`. */
export async function getConnectorStatus(endpoint: ConnectEndpoint, name: string): Promise<Connector> {
  const status = await requestConnect<RawConnectorStatus>(endpoint, "GET", `/connectors/${encodeURIComponent(name)}/status`);
  return reshapeConnector(name, status, undefined);
}

/** A MirrorSourceConnector's stored positions: `GET /connectors/{name}/offsets` (Connect 3.5+). */
export async function getMirrorSourceOffsets(endpoint: ConnectEndpoint, name: string): Promise<MirrorSourceOffset[]> {
  const raw = await requestConnect<RawConnectorOffsets>(endpoint, "GET", `/connectors/${encodeURIComponent(name)}/offsets`);
  const result: MirrorSourceOffset[] = [];
  for (const entry of raw.offsets) {
    const { cluster, topic, partition } = entry.partition;
    const offset = entry.offset?.offset;
    if (typeof cluster === "string" && typeof topic === "string" && typeof partition === "number" && typeof offset === "number") {
      result.push({ cluster, topic, partition, offset: BigInt(offset) });
    }
  }
  return result;
}

function reshapeConnector(name: string, status: RawConnectorStatus | undefined, info: RawConnectorInfo | undefined): Connector {
  const config = info?.config ?? {};
  const tasks: TaskStatus[] = (status?.tasks ?? [])
    .map((t) => ({ id: t.id, state: t.state, workerId: t.worker_id, trace: t.trace ?? null, rootCause: extractRootCause(t.trace) }))
    .sort((a, b) => a.id - b.id);
  return {
    name,
    type: status?.type ?? info?.type ?? "unknown",
    connectorClass: config["connector.class"] ?? "unknown",
    state: status?.connector.state ?? "UNKNOWN",
    workerId: status?.connector.worker_id ?? "",
    trace: status?.connector.trace ?? null,
    rootCause: extractRootCause(status?.connector.trace),
    tasks,
    config,
  };
}
