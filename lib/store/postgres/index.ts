import type pg from "pg";
import { getLogger } from "@/lib/logger";
import type { Store } from "../types";
import { appendEvent, getValue, listEvents, loadAlerts, saveAlerts, setValue } from "./alerts-events";
import { createPool, describeDatabaseUrl, inTransaction } from "./connection";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, pruneHistory, readCheckpointHistory } from "./history";
import { applyMigrations } from "./migrations";
import { pruneSeries, readPartitionHistory, readTopicLagSeries, recordFlowSamples } from "./series";
import { pruneTranslationSeries, readTranslationSeries, recordTranslationSamples } from "./translation-series";

/**
 * The PostgreSQL implementation of Store (the `pg` client, a small pool): the same contract as SQLite, for several
 * Gapwatch processes sharing one database. Created at once; the first call connects and applies pending migrations
 * (a failure is retried by the next call), so nothing reads or writes an old schema.
 */
export function createPostgresStore(url: string): Store {
  const pool = createPool(url);
  getLogger("store").info({ database: describeDatabaseUrl(url) }, "using the PostgreSQL store");
  let ready: Promise<pg.Pool> | null = null;
  const db = () =>
    (ready ??= inTransaction(pool, applyMigrations)
      .then(() => pool)
      .catch((err: unknown) => {
        ready = null;
        throw err;
      }));
  return {
    recordFlowSamples: async (flows, at) => recordFlowSamples(await db(), flows, at),
    readPartitionHistory: async (flow, topic, partition, from, to) => readPartitionHistory(await db(), flow, topic, partition, from, to),
    readTopicLagSeries: async (flow, from, to) => readTopicLagSeries(await db(), flow, from, to),
    appendOffsetSyncs: async (flow, topic, partition, syncs, at) => appendOffsetSyncs(await db(), flow, topic, partition, syncs, at),
    loadOffsetSyncHistory: async () => loadOffsetSyncHistory(await db()),
    appendCheckpoints: async (flow, checkpoints) => appendCheckpoints(await db(), flow, checkpoints),
    readCheckpointHistory: async (flow, group, topic, partition, limit) => readCheckpointHistory(await db(), flow, group, topic, partition, limit),
    saveAlerts: async (alerts) => saveAlerts(await db(), alerts),
    loadAlerts: async (filter) => loadAlerts(await db(), filter),
    appendEvent: async (event) => appendEvent(await db(), event),
    listEvents: async (from, to, limit) => listEvents(await db(), from, to, limit),
    getValue: async (name) => getValue(await db(), name),
    setValue: async (name, value) => setValue(await db(), name, value),
    prune: async (now) =>
      inTransaction(await db(), async (client) => {
        await pruneSeries(client, now);
        await pruneHistory(client, now);
        await pruneTranslationSeries(client, now);
      }),
    close: () => pool.end(),
    recordTranslationSamples: async (flow, samples, at) => recordTranslationSamples(await db(), flow, samples, at),
    readTranslationSeries: async (flow, group, from, to) => readTranslationSeries(await db(), flow, group, from, to),
  };
}
