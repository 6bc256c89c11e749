import path from "node:path";
import { readEnv } from "@/lib/config/env";
import { appendEvent, getValue, listEvents, loadAlerts, saveAlerts, setValue } from "./alerts-events";
import { openDatabase } from "./db";
import { sqliteDialect } from "./engine/dialect";
import { SqliteRunner } from "./engine/sqlite-runner";
import { transaction } from "./engine/steps";
import { createEngineTables } from "./engine-tables";
import { finishNotifications, leaseNotifications, listQueuedNotifications, queueNotifications } from "./notification-outbox";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, readCheckpointHistory } from "./history";
import { loadDetectorMemoryEntries, saveDetectorMemoryEntries } from "./detector-memory";
import {
  deleteAcknowledgementRequests,
  listAcknowledgementRequests,
  listReadModelVersions,
  publishReadModel,
  readReadModel,
  requestAcknowledgement,
  retireReadModel,
} from "./read-models";
import { listRevokedSessions, revokeSession } from "./revoked-sessions";
import type { Store } from "./types";

export type { NotificationClaim, NotificationDelivery, NotificationLease, QueuedNotification, RevokedSession, PartitionSample, Store, StoredAlert, StoredEvent, TopicLagPoint } from "./types";
export type { DetectorMemoryEntryChange, TranslationSample, TranslationSeriesPoint } from "./types";
export type { AcknowledgementRequest, PublishedReadModel, ReadModelPublication, ReadModelVersion } from "./types";
export { createPostgresStore } from "./postgres";

/**
 * The SQLite implementation of Store (better-sqlite3, WAL). better-sqlite3 is synchronous, and so is the engine's
 * SQLite runner (engine/sqlite-runner.ts): each call runs to completion when it is made, so calls apply in the order
 * they are made.
 */
export function createSqliteStore(file: string): Store {
  const db = openDatabase(file);
  const engine = new SqliteRunner(db);
  const tables = createEngineTables(sqliteDialect);
  const { series, translations } = tables;
  return {
    recordFlowSamples: async (flows, at) => engine.run(series.record(flows, at)),
    readPartitionHistory: async (flow, topic, partition, from, to) => engine.run(series.readHistory(flow, topic, partition, from, to)),
    readTopicLagSeries: async (flow, from, to) => engine.run(series.readTopicLag(flow, from, to)),
    appendOffsetSyncs: async (flow, topic, partition, syncs, at) => engine.run(appendOffsetSyncs(flow, topic, partition, syncs, at)),
    loadOffsetSyncHistory: async () => engine.run(loadOffsetSyncHistory()),
    appendCheckpoints: async (flow, checkpoints) => engine.run(appendCheckpoints(flow, checkpoints)),
    readCheckpointHistory: async (flow, group, topic, partition, limit) => engine.run(readCheckpointHistory(flow, group, topic, partition, limit)),
    // One transaction (the inner one a savepoint): the alerts and the outbox rows their transitions owe.
    saveAlerts: async (alerts, deliveries = [], lease) =>
      engine.run(
        transaction(function* () {
          yield* saveAlerts(alerts);
          return yield* queueNotifications(deliveries, lease ?? null);
        }),
      ),
    loadAlerts: async (filter) => engine.run(loadAlerts(filter)),
    appendEvent: async (event) => engine.run(appendEvent(event)),
    listEvents: async (from, to, limit) => engine.run(listEvents(from, to, limit)),
    getValue: async (name) => engine.run(getValue(name)),
    setValue: async (name, value) => engine.run(setValue(name, value)),
    prune: async (now) => {
      engine.run(transaction(() => tables.prune(now)));
    },
    close: async () => {
      db.close();
    },
    recordTranslationSamples: async (flow, samples, at) => engine.run(translations.record(flow, samples, at)),
    readTranslationSeries: async (flow, group, from, to) => engine.run(translations.read(flow, group, from, to)),
    saveDetectorMemoryEntries: async (changes) => engine.run(saveDetectorMemoryEntries(sqliteDialect, changes)),
    loadDetectorMemoryEntries: async (prefix) => engine.run(loadDetectorMemoryEntries(sqliteDialect, prefix)),
    publishReadModel: async (model) => publishReadModel(db, model),
    listReadModelVersions: async () => listReadModelVersions(db),
    readReadModel: async (shard) => readReadModel(db, shard),
    retireReadModel: async (version) => retireReadModel(db, version),
    requestAcknowledgement: async (request) => requestAcknowledgement(db, request),
    listAcknowledgementRequests: async () => listAcknowledgementRequests(db),
    deleteAcknowledgementRequests: async (alertIds) => deleteAcknowledgementRequests(db, alertIds),
    listQueuedNotifications: async () => engine.run(listQueuedNotifications()),
    leaseNotifications: async (ids, lease, now) => engine.run(leaseNotifications(sqliteDialect, ids, lease, now)),
    finishNotifications: async (ids, outcome, at) => engine.run(finishNotifications(sqliteDialect, ids, outcome, at)),
    revokeSession: async (session) => engine.run(revokeSession(session)),
    listRevokedSessions: async (now) => engine.run(listRevokedSessions(now)),
  };
}

/** Default file: GAPWATCH_DB, else `<config store.path>`, else `.gapwatch/gapwatch.db`. */
export function resolveStorePath(configured: string | undefined): string {
  const env = readEnv();
  if (env.GAPWATCH_DB) return path.resolve(env.GAPWATCH_DB);
  if (configured) return path.resolve(configured);
  return path.resolve(env.GAPWATCH_HOME ?? ".gapwatch", "gapwatch.db");
}
