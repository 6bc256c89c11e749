import type pg from "pg";
import { getLogger } from "@/lib/logger";
import type { Store } from "../types";
import { appendEvent, getValue, listEvents, loadAlerts, saveAlerts, setValue } from "../alerts-events";
import { createPool, describeDatabaseUrl, inTransaction } from "./connection";
import { postgresDialect } from "../engine/dialect";
import { PostgresRunner } from "../engine/postgres-runner";
import { transaction } from "../engine/steps";
import { createEngineTables } from "../engine-tables";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, readCheckpointHistory } from "../history";
import { finishNotifications, leaseNotifications, listQueuedNotifications, queueNotifications } from "../notification-outbox";
import { applyMigrations } from "./migrations";
import {
  deleteAcknowledgementRequests,
  listAcknowledgementRequests,
  listReadModelVersions,
  publishReadModel,
  readReadModel,
  requestAcknowledgement,
  retireReadModel,
} from "./read-models";
import { loadDetectorMemoryEntries, saveDetectorMemoryEntries } from "../detector-memory";
import { listRevokedSessions, revokeSession } from "../revoked-sessions";

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
  const tables = createEngineTables(postgresDialect);
  const { series, translations } = tables;
  return {
    recordFlowSamples: (flows, at) => engine.run(series.record(flows, at)),
    readPartitionHistory: (flow, topic, partition, from, to) => engine.run(series.readHistory(flow, topic, partition, from, to)),
    readTopicLagSeries: (flow, from, to) => engine.run(series.readTopicLag(flow, from, to)),
    appendOffsetSyncs: (flow, topic, partition, syncs, at) => engine.run(appendOffsetSyncs(flow, topic, partition, syncs, at)),
    loadOffsetSyncHistory: () => engine.run(loadOffsetSyncHistory()),
    appendCheckpoints: (flow, checkpoints) => engine.run(appendCheckpoints(flow, checkpoints)),
    readCheckpointHistory: (flow, group, topic, partition, limit) => engine.run(readCheckpointHistory(flow, group, topic, partition, limit)),
    // One transaction: the alerts and the outbox rows their transitions owe.
    saveAlerts: (alerts, deliveries = [], lease) =>
      engine.run(
        transaction(function* () {
          yield* saveAlerts(alerts);
          return yield* queueNotifications(deliveries, lease ?? null);
        }),
      ),
    loadAlerts: (filter) => engine.run(loadAlerts(filter)),
    appendEvent: (event) => engine.run(appendEvent(event)),
    listEvents: (from, to, limit) => engine.run(listEvents(from, to, limit)),
    getValue: (name) => engine.run(getValue(name)),
    setValue: (name, value) => engine.run(setValue(name, value)),
    prune: async (now) => {
      await engine.run(transaction(() => tables.prune(now)));
    },
    close: () => pool.end(),
    recordTranslationSamples: (flow, samples, at) => engine.run(translations.record(flow, samples, at)),
    readTranslationSeries: (flow, group, from, to) => engine.run(translations.read(flow, group, from, to)),
    saveDetectorMemoryEntries: (changes) => engine.run(saveDetectorMemoryEntries(postgresDialect, changes)),
    loadDetectorMemoryEntries: (prefix) => engine.run(loadDetectorMemoryEntries(postgresDialect, prefix)),
    publishReadModel: async (model) => publishReadModel(await db(), model),
    listReadModelVersions: async () => listReadModelVersions(await db()),
    readReadModel: async (shard) => readReadModel(await db(), shard),
    retireReadModel: async (version) => retireReadModel(await db(), version),
    requestAcknowledgement: async (request) => requestAcknowledgement(await db(), request),
    listAcknowledgementRequests: async () => listAcknowledgementRequests(await db()),
    deleteAcknowledgementRequests: async (alertIds) => deleteAcknowledgementRequests(await db(), alertIds),
    listQueuedNotifications: () => engine.run(listQueuedNotifications()),
    leaseNotifications: (ids, lease, now) => engine.run(leaseNotifications(postgresDialect, ids, lease, now)),
    finishNotifications: (ids, outcome, at) => engine.run(finishNotifications(postgresDialect, ids, outcome, at)),
    revokeSession: (session) => engine.run(revokeSession(session)),
    listRevokedSessions: (now) => engine.run(listRevokedSessions(now)),
  };
}
