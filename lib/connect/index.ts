export type { ConnectEndpoint } from "./client";
export { getConnectors, getConnectorStatus, getMirrorSourceOffsets } from "./connectors";
export { deleteConnector, pauseConnector, putConnectorConfig, restartConnector, restartTask, resumeConnector } from "./lifecycle";
export { extractRootCause } from "./trace";
export * from "./types";
