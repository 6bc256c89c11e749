/**
 * Connector and task states from a Kafka Connect status topic (dedicated MM2:
 * `mm2-status.<source>.internal` on the target), folded record by record the way Connect's own
 * reader does (connect/runtime/.../storage/KafkaStatusBackingStore.java `read`):
 *
 * - `status-connector-<name>`: the value replaces the connector's state; a tombstone (null, written
 *   when a connector is DESTROYED) removes the connector **and all its tasks** (`remove(connector)`
 *   drops the connector's row of the task table);
 * - `status-task-<name>-<id>`: the value replaces the task's state, except an UNASSIGNED status of
 *   the same or an older generation than a RUNNING one already held (a stale write from a worker
 *   that had not yet read the RUNNING status during a rebalance); a tombstone removes the task;
 * - `status-topic-…` (topics a connector used, KIP-558) carry no state; records Connect cannot
 *   parse (bad key, bad JSON, unknown state, no generation) are skipped, as Connect skips them.
 *
 * Keys are hashed to the topic's partitions (default 5), so each key's records are in order; the
 * order across partitions does not matter except for a connector tombstone, as in Connect.
 */
import type { ConnectStatusRecord, ConnectStatusStateType } from "./types";

/** One connector's or task's latest status as Connect would report it. */
export interface StatusEntry {
  state: ConnectStatusStateType;
  trace: string | null;
  workerId: string;
  generation: number;
}

/** What Connect's status store holds after reading the topic: connectors and tasks by name and id. */
export interface StatusTable {
  connectors: Map<string, StatusEntry>;
  tasks: Map<string, Map<number, StatusEntry>>;
}

/** A connector with its tasks (by id), for callers that show or judge them. */
export interface ConnectorStatusView extends StatusEntry {
  name: string;
  tasks: (StatusEntry & { id: number })[];
}

export function createStatusTable(): StatusTable {
  return { connectors: new Map(), tasks: new Map() };
}

/** Applies one decoded status record to `table` (see the rules above). */
export function applyStatusRecord(table: StatusTable, record: ConnectStatusRecord): void {
  const entry = toEntry(record);
  if (record.kind === "connector") {
    if (entry === null) {
      table.connectors.delete(record.connector);
      table.tasks.delete(record.connector);
    } else {
      table.connectors.set(record.connector, entry);
    }
    return;
  }
  const tasks = table.tasks.get(record.connector) ?? new Map<number, StatusEntry>();
  if (entry === null) {
    tasks.delete(record.taskId);
  } else {
    const held = tasks.get(record.taskId);
    const stale = entry.state === "UNASSIGNED" && held?.state === "RUNNING" && held.generation >= entry.generation;
    if (!stale) tasks.set(record.taskId, entry);
  }
  if (tasks.size > 0) table.tasks.set(record.connector, tasks);
  else table.tasks.delete(record.connector);
}

/**
 * The connectors the table holds a status for, by name, each with its tasks by id. Tasks of a
 * connector without a status of its own (its record not read yet, or removed) are not listed:
 * Connect's REST API answers 404 for such a connector too.
 */
export function listConnectorStatuses(table: StatusTable): ConnectorStatusView[] {
  return [...table.connectors]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, status]) => ({
      name,
      ...status,
      tasks: [...(table.tasks.get(name) ?? [])].sort(([a], [b]) => a - b).map(([id, task]) => ({ id, ...task })),
    }));
}

function toEntry(record: ConnectStatusRecord): StatusEntry | null {
  if (record.state === null || record.workerId === null || record.generation === null) return null;
  return { state: record.state, trace: record.trace, workerId: record.workerId, generation: record.generation };
}
