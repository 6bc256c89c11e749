import { type CheckpointPoint, flowPartitionKey, type OffsetSyncPoint } from "@/lib/collector/types";
import { all, insertRows, run, transaction, type Work } from "./engine/steps";

/** Offset syncs kept per partition; older ones are dropped (documented bound of the history). */
export const maxSyncsPerPartition = 20_000;

/** Appends a partition's new syncs in order (ids follow the rows' order) and keeps its newest 20,000. */
export function* appendOffsetSyncs(flow: string, topic: string, partition: number, syncs: readonly OffsetSyncPoint[], at: number): Work<void> {
  if (syncs.length === 0) return;
  yield* transaction(function* () {
    yield* insertRows({
      table: "offset_syncs",
      columns: [
        { name: "flow", type: "text" },
        { name: "topic", type: "text" },
        { name: "partition", type: "int" },
        { name: "upstream", type: "bigint" },
        { name: "downstream", type: "bigint" },
        { name: "seen_at", type: "bigint" },
      ],
      // Offsets as decimal text: int64 exactly (TEXT in SQLite, bigint in PostgreSQL).
      rows: syncs.map((s) => [flow, topic, partition, s.upstream.toString(), s.downstream.toString(), at]),
    });
    yield* run(
      `DELETE FROM offset_syncs WHERE flow = ? AND topic = ? AND partition = ? AND id <= (
         SELECT id FROM offset_syncs WHERE flow = ? AND topic = ? AND partition = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
      [flow, topic, partition, flow, topic, partition, maxSyncsPerPartition],
    );
  });
}

/** The whole stored sync history, per flow partition key, oldest first (collector start-up). */
export function* loadOffsetSyncHistory(): Work<Map<string, OffsetSyncPoint[]>> {
  const rows = yield* all<{ flow: string; topic: string; partition: number; upstream: string; downstream: string }>(
    "SELECT flow, topic, partition, upstream, downstream FROM offset_syncs ORDER BY id",
  );
  const map = new Map<string, OffsetSyncPoint[]>();
  for (const r of rows) {
    const key = flowPartitionKey(r.flow, r.topic, r.partition);
    const list = map.get(key) ?? [];
    list.push({ upstream: BigInt(r.upstream), downstream: BigInt(r.downstream) });
    map.set(key, list);
  }
  return map;
}

/** Appends a flow's checkpoints in order. */
export function* appendCheckpoints(flow: string, checkpoints: readonly CheckpointPoint[]): Work<void> {
  if (checkpoints.length === 0) return;
  yield* transaction(() =>
    insertRows({
      table: "checkpoints",
      columns: [
        { name: "flow", type: "text" },
        { name: "group_id", type: "text" },
        { name: "topic", type: "text" },
        { name: "partition", type: "int" },
        { name: "upstream", type: "bigint" },
        { name: "downstream", type: "bigint" },
        { name: "seen_at", type: "bigint" },
      ],
      rows: checkpoints.map((c) => [flow, c.group, c.topic, c.partition, c.upstream.toString(), c.downstream.toString(), c.at]),
    }),
  );
}

/** Newest first. */
export function* readCheckpointHistory(flow: string, group: string, topic: string, partition: number, limit: number): Work<CheckpointPoint[]> {
  const rows = yield* all<{ upstream: string; downstream: string; seen_at: string | number }>(
    "SELECT upstream, downstream, seen_at FROM checkpoints WHERE flow = ? AND group_id = ? AND topic = ? AND partition = ? ORDER BY id DESC LIMIT ?",
    [flow, group, topic, partition, limit],
  );
  return rows.map((r) => ({ group, topic, partition, upstream: BigInt(r.upstream), downstream: BigInt(r.downstream), at: Number(r.seen_at) }));
}

/** Drops checkpoint rows and events older than 30 days. */
export function* pruneHistory(now: number): Work<void> {
  const cutoff = now - 30 * 24 * 60 * 60 * 1000;
  yield* run("DELETE FROM checkpoints WHERE seen_at < ?", [cutoff]);
  yield* run("DELETE FROM events WHERE at < ?", [cutoff]);
}
