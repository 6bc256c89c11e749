import path from "node:path";
import { readEnv } from "@/lib/config/env";
import { appendEvent, getValue, listEvents, loadAlerts, saveAlerts, setValue } from "./alerts-events";
import { openDatabase } from "./db";
import { appendCheckpoints, appendOffsetSyncs, loadOffsetSyncHistory, pruneHistory, readCheckpointHistory } from "./history";
import { pruneSeries, readPartitionHistory, readTopicLagSeries, recordFlowSamples } from "./series";
import { pruneTranslationSeries, readTranslationSeries, recordTranslationSamples } from "./translation-series";
import type { Store } from "./types";

export type { PartitionSample, Store, StoredAlert, StoredEvent, TopicLagPoint } from "./types";
export type { TranslationSample, TranslationSeriesPoint } from "./types";
export { createPostgresStore } from "./postgres";

/**
 * The SQLite implementation of Store (better-sqlite3, WAL). better-sqlite3 is synchronous: each call
 * runs to completion when it is made, so calls apply in the order they are made.
 */
export function createSqliteStore(file: string): Store {
  const db = openDatabase(file);
  return {
    recordFlowSamples: async (flows, at) => recordFlowSamples(db, flows, at),
    readPartitionHistory: async (flow, topic, partition, from, to) => readPartitionHistory(db, flow, topic, partition, from, to),
    readTopicLagSeries: async (flow, from, to) => readTopicLagSeries(db, flow, from, to),
    appendOffsetSyncs: async (flow, topic, partition, syncs, at) => appendOffsetSyncs(db, flow, topic, partition, syncs, at),
    loadOffsetSyncHistory: async () => loadOffsetSyncHistory(db),
    appendCheckpoints: async (flow, checkpoints) => appendCheckpoints(db, flow, checkpoints),
    readCheckpointHistory: async (flow, group, topic, partition, limit) => readCheckpointHistory(db, flow, group, topic, partition, limit),
    saveAlerts: async (alerts) => saveAlerts(db, alerts),
    loadAlerts: async (filter) => loadAlerts(db, filter),
    appendEvent: async (event) => appendEvent(db, event),
    listEvents: async (from, to, limit) => listEvents(db, from, to, limit),
    getValue: async (name) => getValue(db, name),
    setValue: async (name, value) => setValue(db, name, value),
    prune: async (now) => {
      pruneSeries(db, now);
      pruneHistory(db, now);
      pruneTranslationSeries(db, now);
    },
    close: async () => {
      db.close();
    },
    recordTranslationSamples: async (flow, samples, at) => recordTranslationSamples(db, flow, samples, at),
    readTranslationSeries: async (flow, group, from, to) => readTranslationSeries(db, flow, group, from, to),
  };
}

/** Default file: GAPWATCH_DB, else `<config store.path>`, else `.gapwatch/gapwatch.db`. */
export function resolveStorePath(configured: string | undefined): string {
  const env = readEnv();
  if (env.GAPWATCH_DB) return path.resolve(env.GAPWATCH_DB);
  if (configured) return path.resolve(configured);
  return path.resolve(env.GAPWATCH_HOME ?? ".gapwatch", "gapwatch.db");
}
