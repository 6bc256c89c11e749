import type pg from "pg";
import { type CheckpointPoint, flowPartitionKey, type OffsetSyncPoint } from "@/lib/collector/types";
import { maxSyncsPerPartition } from "../history";
import { inTransaction, queryRows } from "./connection";
import { rowsPerStatement, transpose } from "./series";

/** Appends a partition's new syncs in order (ids follow the rows' order) and keeps its newest 20,000. */
export async function appendOffsetSyncs(pool: pg.Pool, flow: string, topic: string, partition: number, syncs: readonly OffsetSyncPoint[], at: number): Promise<void> {
  if (syncs.length === 0) return;
  const key = [flow, topic, partition];
  await inTransaction(pool, async (client) => {
    for (let i = 0; i < syncs.length; i += rowsPerStatement) {
      const chunk = syncs.slice(i, i + rowsPerStatement);
      await client.query(
        `INSERT INTO offset_syncs (flow, topic, partition, upstream, downstream, seen_at)
         SELECT $1, $2, $3, u, d, $6 FROM unnest($4::bigint[], $5::bigint[]) WITH ORDINALITY AS s(u, d, n) ORDER BY n`,
        [...key, chunk.map((s) => s.upstream.toString()), chunk.map((s) => s.downstream.toString()), at],
      );
    }
    await client.query(
      `DELETE FROM offset_syncs WHERE flow = $1 AND topic = $2 AND partition = $3 AND id <= (
         SELECT id FROM offset_syncs WHERE flow = $1 AND topic = $2 AND partition = $3 ORDER BY id DESC LIMIT 1 OFFSET $4)`,
      [...key, maxSyncsPerPartition],
    );
  });
}

/** The whole stored sync history, per flow partition key, oldest first (collector start-up). */
export async function loadOffsetSyncHistory(pool: pg.Pool): Promise<Map<string, OffsetSyncPoint[]>> {
  const rows = await queryRows<{ flow: string; topic: string; partition: number; upstream: string; downstream: string }>(
    pool,
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

export async function appendCheckpoints(pool: pg.Pool, flow: string, checkpoints: readonly CheckpointPoint[]): Promise<void> {
  if (checkpoints.length === 0) return;
  await inTransaction(pool, async (client) => {
    for (let i = 0; i < checkpoints.length; i += rowsPerStatement) {
      const rows = checkpoints.slice(i, i + rowsPerStatement).map((c) => [c.group, c.topic, c.partition, c.upstream.toString(), c.downstream.toString(), c.at]);
      await client.query(
        `INSERT INTO checkpoints (flow, group_id, topic, partition, upstream, downstream, seen_at)
         SELECT $1, g, t, p, u, d, a FROM unnest($2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[])
           WITH ORDINALITY AS c(g, t, p, u, d, a, n) ORDER BY n`,
        [flow, ...transpose(rows, 6)],
      );
    }
  });
}

/** Newest first. */
export async function readCheckpointHistory(pool: pg.Pool, flow: string, group: string, topic: string, partition: number, limit: number): Promise<CheckpointPoint[]> {
  const rows = await queryRows<{ upstream: string; downstream: string; seen_at: string }>(
    pool,
    "SELECT upstream, downstream, seen_at FROM checkpoints WHERE flow = $1 AND group_id = $2 AND topic = $3 AND partition = $4 ORDER BY id DESC LIMIT $5",
    [flow, group, topic, partition, limit],
  );
  return rows.map((r) => ({ group, topic, partition, upstream: BigInt(r.upstream), downstream: BigInt(r.downstream), at: Number(r.seen_at) }));
}

/** Drops checkpoint rows and events older than 30 days. */
export async function pruneHistory(client: pg.PoolClient, now: number): Promise<void> {
  const cutoff = now - 30 * 24 * 60 * 60 * 1000;
  await client.query("DELETE FROM checkpoints WHERE seen_at < $1", [cutoff]);
  await client.query("DELETE FROM events WHERE at < $1", [cutoff]);
}
