import type pg from "pg";
import { getLogger } from "@/lib/logger";
import type { Store } from "../types";
import { appendEvent, getValue, listEvents, loadAlerts, setValue, writeAlerts } from "./alerts-events";
import { createPool, describeDatabaseUrl, inTransaction } from "./connection";
import { postgresDialect } from "../engine/dialect";
import { PostgresRunner } from "../engine/postgres-runner";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, pruneHistory, readCheckpointHistory } from "../history";
import {
  finishNotifications, leaseNotifications, listQueuedNotifications, pruneNotificationLedger, pruneNotificationOutbox, queueNotifications,
} from "../notification-outbox";
import { createSeries } from "../series";
import { createTranslationSeries } from "../translation-series";
import { applyMigrations } from "./migrations";
import { deleteAcknowledgementRequests, listAcknowledgementRequests, listReadModelVersions, publishReadModel, readReadModel, requestAcknowledgement } from "./read-models";
import { loadDetectorMemoryEntries, saveDetectorMemoryEntries } from "./detector-memory";
import { listRevokedSessions, pruneRevokedSessions, revokeSession } from "./revoked-sessions";

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
  const engine = new PostgresRunner(db);
  const series = createSeries(postgresDialect);
  const translations = createTranslationSeries(postgresDialect);
  return {
    recordFlowSamples: (flows, at) => engine.run(series.record(flows, at)),
    readPartitionHistory: (flow, topic, partition, from, to) => engine.run(series.readHistory(flow, topic, partition, from, to)),
    readTopicLagSeries: (flow, from, to) => engine.run(series.readTopicLag(flow, from, to)),
    appendOffsetSyncs: (flow, topic, partition, syncs, at) => engine.run(appendOffsetSyncs(flow, topic, partition, syncs, at)),
    loadOffsetSyncHistory: () => engine.run(loadOffsetSyncHistory()),
    appendCheckpoints: (flow, checkpoints) => engine.run(appendCheckpoints(flow, checkpoints)),
    readCheckpointHistory: (flow, group, topic, partition, limit) => engine.run(readCheckpointHistory(flow, group, topic, partition, limit)),
    // One transaction: the alerts and the outbox rows their transitions owe.
    saveAlerts: async (alerts, deliveries = [], lease) =>
      inTransaction(await db(), async (client) => {
        await writeAlerts(client, alerts);
        return engine.run(queueNotifications(deliveries, lease ?? null), client);
      }),
    loadAlerts: async (filter) => loadAlerts(await db(), filter),
    appendEvent: async (event) => appendEvent(await db(), event),
    listEvents: async (from, to, limit) => listEvents(await db(), from, to, limit),
    getValue: async (name) => getValue(await db(), name),
    setValue: async (name, value) => setValue(await db(), name, value),
    prune: async (now) => {
      await inTransaction(await db(), async (client) => {
        await engine.run(series.prune(now), client);
        await engine.run(pruneHistory(now), client);
        await engine.run(translations.prune(now), client);
        await engine.run(pruneNotificationLedger(now), client);
        await engine.run(pruneNotificationOutbox(now), client);
        await pruneRevokedSessions(client, now);
      });
    },
    close: () => pool.end(),
    recordTranslationSamples: (flow, samples, at) => engine.run(translations.record(flow, samples, at)),
    readTranslationSeries: (flow, group, from, to) => engine.run(translations.read(flow, group, from, to)),
    saveDetectorMemoryEntries: async (changes) => saveDetectorMemoryEntries(await db(), changes),
    loadDetectorMemoryEntries: async (prefix) => loadDetectorMemoryEntries(await db(), prefix),
    publishReadModel: async (model) => publishReadModel(await db(), model),
    listReadModelVersions: async () => listReadModelVersions(await db()),
    readReadModel: async (shard) => readReadModel(await db(), shard),
    requestAcknowledgement: async (request) => requestAcknowledgement(await db(), request),
    listAcknowledgementRequests: async () => listAcknowledgementRequests(await db()),
    deleteAcknowledgementRequests: async (alertIds) => deleteAcknowledgementRequests(await db(), alertIds),
    listQueuedNotifications: () => engine.run(listQueuedNotifications()),
    leaseNotifications: (ids, lease, now) => engine.run(leaseNotifications(postgresDialect, ids, lease, now)),
    finishNotifications: (ids, outcome, at) => engine.run(finishNotifications(postgresDialect, ids, outcome, at)),
    revokeSession: async (session) => revokeSession(await db(), session),
    listRevokedSessions: async (now) => listRevokedSessions(await db(), now),
  };
}
