import { type CheckpointPoint, flowPartitionKey, type OffsetSyncPoint } from "@/lib/collector/types";
import type { SqliteDb } from "./db";

/** Offset syncs kept per partition; older ones are dropped (documented bound of the history). */
export const maxSyncsPerPartition = 20_000;

export function appendOffsetSyncs(db: SqliteDb, flow: string, topic: string, partition: number, syncs: readonly OffsetSyncPoint[], at: number): void {
  if (syncs.length === 0) return;
  const insert = db.prepare("INSERT INTO offset_syncs (flow, topic, partition, upstream, downstream, seen_at) VALUES (?, ?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const s of syncs) insert.run(flow, topic, partition, s.upstream.toString(), s.downstream.toString(), at);
    db.prepare(
      `DELETE FROM offset_syncs WHERE flow = ? AND topic = ? AND partition = ? AND id <= (
         SELECT id FROM offset_syncs WHERE flow = ? AND topic = ? AND partition = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    ).run(flow, topic, partition, flow, topic, partition, maxSyncsPerPartition);
  })();
}

/** The whole stored sync history, per flow partition key, oldest first (collector start-up). */
export function loadOffsetSyncHistory(db: SqliteDb): Map<string, OffsetSyncPoint[]> {
  const rows = db.prepare("SELECT flow, topic, partition, upstream, downstream FROM offset_syncs ORDER BY id").all() as {
    flow: string; topic: string; partition: number; upstream: string; downstream: string;
  }[];
  const map = new Map<string, OffsetSyncPoint[]>();
  for (const r of rows) {
    const key = flowPartitionKey(r.flow, r.topic, r.partition);
    const list = map.get(key) ?? [];
    list.push({ upstream: BigInt(r.upstream), downstream: BigInt(r.downstream) });
    map.set(key, list);
  }
  return map;
}

export function appendCheckpoints(db: SqliteDb, flow: string, checkpoints: readonly CheckpointPoint[]): void {
  if (checkpoints.length === 0) return;
  const insert = db.prepare("INSERT INTO checkpoints (flow, group_id, topic, partition, upstream, downstream, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const c of checkpoints) insert.run(flow, c.group, c.topic, c.partition, c.upstream.toString(), c.downstream.toString(), c.at);
  })();
}

/** Newest first. */
export function readCheckpointHistory(db: SqliteDb, flow: string, group: string, topic: string, partition: number, limit: number): CheckpointPoint[] {
  const rows = db
    .prepare(`SELECT upstream, downstream, seen_at FROM checkpoints WHERE flow = ? AND group_id = ? AND topic = ? AND partition = ? ORDER BY id DESC LIMIT ?`)
    .all(flow, group, topic, partition, limit) as { upstream: string; downstream: string; seen_at: number }[];
  return rows.map((r) => ({ group, topic, partition, upstream: BigInt(r.upstream), downstream: BigInt(r.downstream), at: r.seen_at }));
}

/** Drops checkpoint rows and events older than 30 days. */
export function pruneHistory(db: SqliteDb, now: number): void {
  const cutoff = now - 30 * 24 * 60 * 60 * 1000;
  db.prepare("DELETE FROM checkpoints WHERE seen_at < ?").run(cutoff);
  db.prepare("DELETE FROM events WHERE at < ?").run(cutoff);
}
