import { describe, expect, it } from "vitest";
import { decodeConnectStatus } from "@/lib/mm2/connect-records";
import { decodeAll } from "@/lib/mm2/record-decoders";
import { applyStatusRecord, createStatusTable, listConnectorStatuses, type StatusTable } from "@/lib/mm2/status-records";

/** Worker id of the dedicated MM2 herder dsrc->dtgt, as Kafka 4.3.1 wrote it in the sandbox. */
const WORKER = "localhost/dsrc->dtgt/cdaaf182-dbc9-4b0d-81ad-5a128ec81868";

/** A status record as MirrorMaker 4.3.1 writes it to `mm2-status.dsrc.internal` (JSON, schemas disabled). */
function status(key: string, state: string | null, generation = 5, trace: string | null = null) {
  const value = state === null ? null : Buffer.from(JSON.stringify({ state, trace, worker_id: WORKER, generation, version: "4.3.1" }));
  return { key: Buffer.from(key), value };
}

function fold(records: ReturnType<typeof status>[], table: StatusTable = createStatusTable()) {
  const decoded = decodeAll(records, decodeConnectStatus);
  for (const r of decoded.decoded) applyStatusRecord(table, r);
  const view = listConnectorStatuses(table).map((c) => [c.name, c.state, c.tasks.map((t) => [t.id, t.state, t.generation])]);
  return { table, malformed: decoded.malformed, skipped: decoded.skipped, view };
}

describe("Connect status topic, folded as KafkaStatusBackingStore reads it", () => {
  it("gives each connector and task its newest state, connectors by name and tasks by id", () => {
    // The records of a dedicated MM2's start-up, as ConsoleConsumer printed them (status-topic records included).
    const { view, skipped } = fold([
      status("status-connector-MirrorSourceConnector", "RUNNING", 3),
      status("status-task-MirrorHeartbeatConnector-0", "RUNNING", 4),
      status("status-connector-MirrorCheckpointConnector", "RUNNING", 3),
      status("status-connector-MirrorHeartbeatConnector", "RUNNING", 3),
      {
        key: Buffer.from("status-topic-heartbeats:connector-MirrorHeartbeatConnector"),
        value: Buffer.from('{"topic":{"name":"heartbeats","connector":"MirrorHeartbeatConnector","task":0,"discoverTimestamp":1796151804822}}'),
      },
      status("status-task-MirrorSourceConnector-0", "RUNNING", 5),
    ]);
    expect(skipped).toBe(1);
    expect(view).toEqual([
      ["MirrorCheckpointConnector", "RUNNING", []],
      ["MirrorHeartbeatConnector", "RUNNING", [[0, "RUNNING", 4]]],
      ["MirrorSourceConnector", "RUNNING", [[0, "RUNNING", 5]]],
    ]);
  });

  it("ignores a task's UNASSIGNED of the same or an older generation than the RUNNING it holds (seen on a graceful stop)", () => {
    // MirrorMaker stopped with SIGTERM: the source task's UNASSIGNED carries generation 5, as its RUNNING did.
    const { view } = fold([
      status("status-connector-MirrorSourceConnector", "RUNNING", 3),
      status("status-task-MirrorSourceConnector-0", "RUNNING", 5),
      status("status-task-MirrorHeartbeatConnector-0", "RUNNING", 4),
      status("status-connector-MirrorHeartbeatConnector", "RUNNING", 3),
      status("status-connector-MirrorSourceConnector", "UNASSIGNED", 5),
      status("status-task-MirrorHeartbeatConnector-0", "UNASSIGNED", 5),
      status("status-task-MirrorSourceConnector-0", "UNASSIGNED", 5),
      status("status-task-MirrorSourceConnector-0", "UNASSIGNED", 4),
    ]);
    expect(view).toEqual([
      ["MirrorHeartbeatConnector", "RUNNING", [[0, "UNASSIGNED", 5]]],
      ["MirrorSourceConnector", "UNASSIGNED", [[0, "RUNNING", 5]]],
    ]);
  });

  it("takes an UNASSIGNED of a newer generation, and any other state whatever its generation", () => {
    const { view } = fold([
      status("status-task-MirrorSourceConnector-0", "RUNNING", 5),
      status("status-task-MirrorSourceConnector-0", "UNASSIGNED", 6),
      status("status-task-MirrorSourceConnector-1", "RUNNING", 7),
      status("status-task-MirrorSourceConnector-1", "FAILED", 2, "java.lang.RuntimeException: x"),
      status("status-connector-MirrorSourceConnector", "RUNNING", 7),
      status("status-connector-MirrorSourceConnector", "PAUSED", 1),
    ]);
    expect(view).toEqual([["MirrorSourceConnector", "PAUSED", [[0, "UNASSIGNED", 6], [1, "FAILED", 2]]]]);
  });

  it("removes a task on its tombstone, and a connector with all its tasks on the connector's tombstone", () => {
    const table = fold([
      status("status-connector-MirrorSourceConnector", "RUNNING"),
      status("status-task-MirrorSourceConnector-0", "RUNNING"),
      status("status-task-MirrorSourceConnector-1", "RUNNING"),
      status("status-connector-MirrorCheckpointConnector", "RUNNING"),
      status("status-task-MirrorCheckpointConnector-0", "RUNNING"),
      status("status-task-MirrorSourceConnector-1", null),
    ]);
    expect(table.view).toEqual([
      ["MirrorCheckpointConnector", "RUNNING", [[0, "RUNNING", 5]]],
      ["MirrorSourceConnector", "RUNNING", [[0, "RUNNING", 5]]],
    ]);
    const after = fold([status("status-connector-MirrorSourceConnector", null)], table.table);
    expect(after.view).toEqual([["MirrorCheckpointConnector", "RUNNING", [[0, "RUNNING", 5]]]]);
    expect(after.table.tasks.has("MirrorSourceConnector")).toBe(false);
  });

  it("skips records Connect cannot parse (no generation, unknown state) and keeps what it held", () => {
    const { view, malformed } = fold([
      status("status-connector-MirrorSourceConnector", "RUNNING", 3),
      { key: Buffer.from("status-connector-MirrorSourceConnector"), value: Buffer.from(`{"state":"FAILED","trace":null,"worker_id":"${WORKER}"}`) },
      status("status-task-MirrorSourceConnector-0", "DANCING"),
    ]);
    expect([view, malformed]).toEqual([[["MirrorSourceConnector", "RUNNING", []]], 2]);
  });

  it("lists tasks only under a connector that has a status of its own (Connect's REST API answers 404 otherwise)", () => {
    expect(fold([status("status-task-MirrorSourceConnector-0", "RUNNING")]).view).toEqual([]);
  });
});
