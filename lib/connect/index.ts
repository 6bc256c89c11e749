export type { ConnectEndpoint } from "./client";
export { toConnectEndpoint } from "./client";
export { getConnectors, getConnectorStatus, getMirrorSourceOffsets } from "./connectors";
export { alterMirrorSourceOffsets, createStoppedConnector, deleteConnector, pauseConnector, putConnectorConfig, restartConnector, restartTask, resumeConnector, stopConnector } from "./lifecycle";
export type { MirrorOffsetChange } from "./lifecycle";
export { extractRootCause } from "./trace";
export * from "./types";
