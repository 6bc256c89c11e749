// What the history-size bench (history-size.ts) needs of a store beyond the Store interface: the counters it reads
// between cycles and the sizes it reads at the end, per store (history-sqlite-probe.ts, history-postgres-probe.ts).
import type { Store } from "@/lib/store/types";

export interface HistorySizes {
  /** Rows and bytes per table, its indexes (and TOAST) included. */
  tables: { name: string; rows: number; bytes: number }[];
  /** partition_packs' parts: its table, TOAST and each index, bytes. */
  packParts: { name: string; bytes: number }[];
  packRows: { tier: number; data: Buffer }[];
  /** Bytes of a topic hour row as compacted after 24 h (its largest lag alone). */
  compactedTopicRow: number;
  /** The SQLite file, or the PostgreSQL database (pg_database_size). */
  fileBytes: number;
  /** PostgreSQL: who vacuumed the history tables during the run, and the dead tuples left at the end. */
  vacuum: { mode: VacuumMode; tables: { name: string; autovacuums: number; vacuums: number; deadTuples: number }[] } | null;
}

/** PostgreSQL: `after-prune` runs a plain VACUUM of the history tables after each prune, `auto` leaves it to autovacuum. */
export type VacuumMode = "after-prune" | "auto";

export interface HistoryProbe {
  store: Store;
  afterPrune(): Promise<void>;
  /** The staged cycle blobs written at `at`. */
  listStagedBlobs(at: number): Promise<Buffer[]>;
  /** Raw (tier 0) packs of a bucket. */
  countRawPacks(bucket: number): Promise<number>;
  /** Closes the store, then measures. */
  measure(): Promise<HistorySizes>;
  dispose(): Promise<void>;
}
