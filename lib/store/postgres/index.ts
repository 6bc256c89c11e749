import type pg from "pg";
import { getLogger } from "@/lib/logger";
import type { Store } from "../types";
import { appendEvent, getValue, listEvents, loadAlerts, setValue, writeAlerts } from "./alerts-events";
import { createPool, describeDatabaseUrl, inTransaction } from "./connection";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, pruneHistory, readCheckpointHistory } from "./history";
import { applyMigrations } from "./migrations";
import { pruneNotificationLedger } from "./notification-ledger";
import { finishNotifications, leaseNotifications, listQueuedNotifications, pruneNotificationOutbox, queueNotifications } from "./notification-outbox";
import { deleteAcknowledgementRequests, listAcknowledgementRequests, listReadModelVersions, publishReadModel, readReadModel, requestAcknowledgement } from "./read-models";
import { loadDetectorMemoryEntries, saveDetectorMemoryEntries } from "./detector-memory";
import { createPostgresSeries } from "./series";
import { listRevokedSessions, pruneRevokedSessions, revokeSession } from "./revoked-sessions";
import { createPostgresTranslationSeries } from "./translation-series";

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
  const series = createPostgresSeries();
  const translations = createPostgresTranslationSeries();
  return {
    recordFlowSamples: async (flows, at) => series.record(await db(), flows, at),
    readPartitionHistory: async (flow, topic, partition, from, to) => series.readHistory(await db(), flow, topic, partition, from, to),
    readTopicLagSeries: async (flow, from, to) => series.readTopicLag(await db(), flow, from, to),
    appendOffsetSyncs: async (flow, topic, partition, syncs, at) => appendOffsetSyncs(await db(), flow, topic, partition, syncs, at),
    loadOffsetSyncHistory: async () => loadOffsetSyncHistory(await db()),
    appendCheckpoints: async (flow, checkpoints) => appendCheckpoints(await db(), flow, checkpoints),
    readCheckpointHistory: async (flow, group, topic, partition, limit) => readCheckpointHistory(await db(), flow, group, topic, partition, limit),
    // One transaction: the alerts and the outbox rows their transitions owe.
    saveAlerts: async (alerts, deliveries = [], lease) =>
      inTransaction(await db(), async (client) => {
        await writeAlerts(client, alerts);
        return queueNotifications(client, deliveries, lease ?? null);
      }),
    loadAlerts: async (filter) => loadAlerts(await db(), filter),
    appendEvent: async (event) => appendEvent(await db(), event),
    listEvents: async (from, to, limit) => listEvents(await db(), from, to, limit),
    getValue: async (name) => getValue(await db(), name),
    setValue: async (name, value) => setValue(await db(), name, value),
    prune: async (now) => {
      await inTransaction(await db(), async (client) => {
        await series.prune(pool, client, now);
        await pruneHistory(client, now);
        await translations.prune(pool, client, now);
        await pruneNotificationLedger(client, now);
        await pruneNotificationOutbox(client, now);
        await pruneRevokedSessions(client, now);
      });
    },
    close: () => pool.end(),
    recordTranslationSamples: async (flow, samples, at) => translations.record(await db(), flow, samples, at),
    readTranslationSeries: async (flow, group, from, to) => translations.read(await db(), flow, group, from, to),
    saveDetectorMemoryEntries: async (changes) => saveDetectorMemoryEntries(await db(), changes),
    loadDetectorMemoryEntries: async (prefix) => loadDetectorMemoryEntries(await db(), prefix),
    publishReadModel: async (model) => publishReadModel(await db(), model),
    listReadModelVersions: async () => listReadModelVersions(await db()),
    readReadModel: async (shard) => readReadModel(await db(), shard),
    requestAcknowledgement: async (request) => requestAcknowledgement(await db(), request),
    listAcknowledgementRequests: async () => listAcknowledgementRequests(await db()),
    deleteAcknowledgementRequests: async (alertIds) => deleteAcknowledgementRequests(await db(), alertIds),
    listQueuedNotifications: async () => listQueuedNotifications(await db()),
    leaseNotifications: async (ids, lease, now) => leaseNotifications(await db(), ids, lease, now),
    finishNotifications: async (ids, outcome, at) => finishNotifications(await db(), ids, outcome, at),
    revokeSession: async (session) => revokeSession(await db(), session),
    listRevokedSessions: async (now) => listRevokedSessions(await db(), now),
  };
}
