/**
 * Kafka Connect REST shapes (wire, `Raw*`) and the domain types Gapwatch uses.
 * States: https://kafka.apache.org/documentation/#connect_administration and
 * connect/runtime/.../rest/entities/ConnectorStateInfo.java.
 */
export const ConnectorState = {
  UNASSIGNED: "UNASSIGNED",
  RUNNING: "RUNNING",
  PAUSED: "PAUSED",
  FAILED: "FAILED",
  RESTARTING: "RESTARTING",
  /** Connector only, Kafka 3.5+. */
  STOPPED: "STOPPED",
} as const;
export type ConnectorStateType = (typeof ConnectorState)[keyof typeof ConnectorState];

export interface RawStateInfo {
  state: string;
  worker_id: string;
  trace?: string;
}
export interface RawTaskState extends RawStateInfo {
  id: number;
}
export interface RawConnectorStatus {
  name: string;
  connector: RawStateInfo;
  tasks: RawTaskState[];
  type?: string;
}
export interface RawConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type?: string;
}
/** `GET /connectors?expand=status&expand=info` */
export type RawExpandedConnectors = Record<string, { status?: RawConnectorStatus; info?: RawConnectorInfo }>;
/** `GET /connectors/{name}/offsets` (3.5+) */
export interface RawConnectorOffsets {
  offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];
}

export interface TaskStatus {
  id: number;
  state: ConnectorStateType | string;
  workerId: string;
  trace: string | null;
  /** The line of the trace that says why (last `Caused by:`), or null. */
  rootCause: string | null;
}

export interface Connector {
  name: string;
  type: string;
  connectorClass: string;
  state: ConnectorStateType | string;
  workerId: string;
  trace: string | null;
  rootCause: string | null;
  tasks: TaskStatus[];
  config: Record<string, string>;
  /**
   * The state the connector was told to be in (STARTED, PAUSED, STOPPED), from the config topic's
   * `target-state-<name>`; only when read from Connect's internal topics (REST shows the state it reached).
   */
  targetState?: string;
}

/** One source partition's position as Connect stored it for a MirrorSourceConnector. */
export interface MirrorSourceOffset {
  cluster: string;
  topic: string;
  partition: number;
  /** Upstream offset of the last replicated record; MM2 resumes at offset + 1. */
  offset: bigint;
}
