import path from "node:path";
import { readEnv } from "@/lib/config/env";
import { appendEvent, getValue, listEvents, loadAlerts, saveAlerts, setValue } from "./alerts-events";
import { openDatabase } from "./db";
import { pruneNotificationLedger } from "./notification-ledger";
import { finishNotifications, leaseNotifications, listQueuedNotifications, pruneNotificationOutbox, queueNotifications } from "./notification-outbox";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, pruneHistory, readCheckpointHistory } from "./history";
import { loadDetectorMemoryEntries, saveDetectorMemoryEntries } from "./detector-memory";
import { createSqliteSeries } from "./series";
import { deleteAcknowledgementRequests, listAcknowledgementRequests, listReadModelVersions, publishReadModel, readReadModel, requestAcknowledgement } from "./read-models";
import { listRevokedSessions, pruneRevokedSessions, revokeSession } from "./revoked-sessions";
import { createSqliteTranslationSeries } from "./translation-series";
import type { Store } from "./types";

export type { NotificationClaim, NotificationDelivery, NotificationLease, QueuedNotification, RevokedSession, PartitionSample, Store, StoredAlert, StoredEvent, TopicLagPoint } from "./types";
export type { DetectorMemoryEntryChange, TranslationSample, TranslationSeriesPoint } from "./types";
export type { AcknowledgementRequest, PublishedReadModel, ReadModelVersion } from "./types";
export { createPostgresStore } from "./postgres";

/**
 * The SQLite implementation of Store (better-sqlite3, WAL). better-sqlite3 is synchronous: each call
 * runs to completion when it is made, so calls apply in the order they are made.
 */
export function createSqliteStore(file: string): Store {
  const db = openDatabase(file);
  const series = createSqliteSeries(db);
  const translations = createSqliteTranslationSeries(db);
  return {
    recordFlowSamples: async (flows, at) => series.record(flows, at),
    readPartitionHistory: async (flow, topic, partition, from, to) => series.readHistory(flow, topic, partition, from, to),
    readTopicLagSeries: async (flow, from, to) => series.readTopicLag(flow, from, to),
    appendOffsetSyncs: async (flow, topic, partition, syncs, at) => appendOffsetSyncs(db, flow, topic, partition, syncs, at),
    loadOffsetSyncHistory: async () => loadOffsetSyncHistory(db),
    appendCheckpoints: async (flow, checkpoints) => appendCheckpoints(db, flow, checkpoints),
    readCheckpointHistory: async (flow, group, topic, partition, limit) => readCheckpointHistory(db, flow, group, topic, partition, limit),
    // One transaction (the inner one a savepoint): the alerts and the outbox rows their transitions owe.
    saveAlerts: async (alerts, deliveries = [], lease) =>
      db.transaction(() => {
        saveAlerts(db, alerts);
        return queueNotifications(db, deliveries, lease ?? null);
      })(),
    loadAlerts: async (filter) => loadAlerts(db, filter),
    appendEvent: async (event) => appendEvent(db, event),
    listEvents: async (from, to, limit) => listEvents(db, from, to, limit),
    getValue: async (name) => getValue(db, name),
    setValue: async (name, value) => setValue(db, name, value),
    prune: async (now) => {
      series.prune(now);
      pruneHistory(db, now);
      translations.prune(now);
      pruneNotificationLedger(db, now);
      pruneNotificationOutbox(db, now);
      pruneRevokedSessions(db, now);
    },
    close: async () => {
      db.close();
    },
    recordTranslationSamples: async (flow, samples, at) => translations.record(flow, samples, at),
    readTranslationSeries: async (flow, group, from, to) => translations.read(flow, group, from, to),
    saveDetectorMemoryEntries: async (changes) => saveDetectorMemoryEntries(db, changes),
    loadDetectorMemoryEntries: async (prefix) => loadDetectorMemoryEntries(db, prefix),
    publishReadModel: async (model) => publishReadModel(db, model),
    listReadModelVersions: async () => listReadModelVersions(db),
    readReadModel: async (shard) => readReadModel(db, shard),
    requestAcknowledgement: async (request) => requestAcknowledgement(db, request),
    listAcknowledgementRequests: async () => listAcknowledgementRequests(db),
    deleteAcknowledgementRequests: async (alertIds) => deleteAcknowledgementRequests(db, alertIds),
    listQueuedNotifications: async () => listQueuedNotifications(db),
    leaseNotifications: async (ids, lease, now) => leaseNotifications(db, ids, lease, now),
    finishNotifications: async (ids, outcome, at) => finishNotifications(db, ids, outcome, at),
    revokeSession: async (session) => revokeSession(db, session),
    listRevokedSessions: async (now) => listRevokedSessions(db, now),
  };
}

/** Default file: GAPWATCH_DB, else `<config store.path>`, else `.gapwatch/gapwatch.db`. */
export function resolveStorePath(configured: string | undefined): string {
  const env = readEnv();
  if (env.GAPWATCH_DB) return path.resolve(env.GAPWATCH_DB);
  if (configured) return path.resolve(configured);
  return path.resolve(env.GAPWATCH_HOME ?? ".gapwatch", "gapwatch.db");
}
