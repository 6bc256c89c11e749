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

/** The SQLite implementation of Store (better-sqlite3, WAL). The only place that runs SQL. */
export function createSqliteStore(file: string): Store {
  const db = openDatabase(file);
  return {
    recordFlowSamples: (flows, at) => recordFlowSamples(db, flows, at),
    readPartitionHistory: (flow, topic, partition, from, to) => readPartitionHistory(db, flow, topic, partition, from, to),
    readTopicLagSeries: (flow, from, to) => readTopicLagSeries(db, flow, from, to),
    appendOffsetSyncs: (flow, topic, partition, syncs, at) => appendOffsetSyncs(db, flow, topic, partition, syncs, at),
    loadOffsetSyncHistory: () => loadOffsetSyncHistory(db),
    appendCheckpoints: (flow, checkpoints) => appendCheckpoints(db, flow, checkpoints),
    readCheckpointHistory: (flow, group, topic, partition, limit) => readCheckpointHistory(db, flow, group, topic, partition, limit),
    saveAlerts: (alerts) => saveAlerts(db, alerts),
    loadAlerts: (filter) => loadAlerts(db, filter),
    appendEvent: (event) => appendEvent(db, event),
    listEvents: (from, to, limit) => listEvents(db, from, to, limit),
    getValue: (name) => getValue(db, name),
    setValue: (name, value) => setValue(db, name, value),
    prune: (now) => {
      pruneSeries(db, now);
      pruneHistory(db, now);
      pruneTranslationSeries(db, now);
    },
    close: () => db.close(),
    recordTranslationSamples: (flow, samples, at) => recordTranslationSamples(db, flow, samples, at),
    readTranslationSeries: (flow, group, from, to) => readTranslationSeries(db, flow, group, from, to),
  };
}

/** Default file: GAPWATCH_DB, else `<config store.path>`, else `.gapwatch/gapwatch.db`. */
export function resolveStorePath(configured: string | undefined): string {
  const env = readEnv();
  if (env.GAPWATCH_DB) return path.resolve(env.GAPWATCH_DB);
  if (configured) return path.resolve(configured);
  return path.resolve(env.GAPWATCH_HOME ?? ".gapwatch", "gapwatch.db");
}
