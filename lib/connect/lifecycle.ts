import { type ConnectEndpoint, requestConnect } from "./client";

const path = (name: string, suffix: string) => `/connectors/${encodeURIComponent(name)}${suffix}`;

/** Creates or updates a connector: `PUT /connectors/{name}/config`. */
export async function putConnectorConfig(endpoint: ConnectEndpoint, name: string, config: Record<string, string>): Promise<void> {
  await requestConnect(endpoint, "PUT", path(name, "/config"), config);
}

/**
 * Creates a connector that never starts a task: `POST /connectors` with `initial_state: STOPPED` (KIP-980, Connect
 * 3.7+). A MirrorSourceConnector created RUNNING and stopped right after may copy records meanwhile — MM2 always
 * replicates `heartbeats`, whatever its topic filter.
 */
export async function createStoppedConnector(endpoint: ConnectEndpoint, name: string, config: Record<string, string>): Promise<void> {
  await requestConnect(endpoint, "POST", "/connectors", { name, config, initial_state: "STOPPED" });
}

/** `PUT /connectors/{name}/pause` — tasks stop polling; offsets stay. */
export async function pauseConnector(endpoint: ConnectEndpoint, name: string): Promise<void> {
  await requestConnect(endpoint, "PUT", path(name, "/pause"));
}

/** `PUT /connectors/{name}/resume` */
export async function resumeConnector(endpoint: ConnectEndpoint, name: string): Promise<void> {
  await requestConnect(endpoint, "PUT", path(name, "/resume"));
}

/** Restarts a connector and its tasks: `POST /connectors/{name}/restart?includeTasks=true&onlyFailed=…` (Connect 3.0+). */
export async function restartConnector(endpoint: ConnectEndpoint, name: string, onlyFailed = true): Promise<void> {
  await requestConnect(endpoint, "POST", path(name, `/restart?includeTasks=true&onlyFailed=${onlyFailed}`));
}

/** Restarts one task: `POST /connectors/{name}/tasks/{id}/restart`. */
export async function restartTask(endpoint: ConnectEndpoint, name: string, taskId: number): Promise<void> {
  await requestConnect(endpoint, "POST", path(name, `/tasks/${taskId}/restart`));
}

/** Deletes a connector: `DELETE /connectors/{name}`. */
export async function deleteConnector(endpoint: ConnectEndpoint, name: string): Promise<void> {
  await requestConnect(endpoint, "DELETE", path(name, ""));
}

/** `PUT /connectors/{name}/stop` (Connect 3.5+): tasks shut down, offsets can then be altered (KIP-875). */
export async function stopConnector(endpoint: ConnectEndpoint, name: string): Promise<void> {
  await requestConnect(endpoint, "PUT", path(name, "/stop"));
}

/** One MirrorSourceConnector position to write: `offset` is the upstream offset of the last replicated record. */
export interface MirrorOffsetChange {
  cluster: string;
  topic: string;
  partition: number;
  offset: bigint;
}

/**
 * `PATCH /connectors/{name}/offsets` (KIP-875, connector STOPPED): rewrites MirrorSourceConnector
 * positions in Connect's offsets topic, in the partition/offset shape MirrorSourceTask stores.
 */
export async function alterMirrorSourceOffsets(endpoint: ConnectEndpoint, name: string, changes: readonly MirrorOffsetChange[]): Promise<void> {
  const offsets = changes.map((c) => ({ partition: { cluster: c.cluster, topic: c.topic, partition: c.partition }, offset: { offset: Number(c.offset) } }));
  await requestConnect(endpoint, "PATCH", path(name, "/offsets"), { offsets });
}
