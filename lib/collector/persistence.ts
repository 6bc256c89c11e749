import type { CheckpointPoint, OffsetSyncPoint } from "./types";

/**
 * What the collector keeps across restarts: the offset syncs and checkpoints it read (MM2 compacts them away)
 * and its transaction ledgers. The pipeline hands it the store, which implements this; the collector knows no store.
 */
export interface CollectorPersistence {
  loadOffsetSyncHistory(): Promise<Map<string, OffsetSyncPoint[]>>;
  appendOffsetSyncs(flow: string, topic: string, partition: number, syncs: readonly OffsetSyncPoint[], at: number): Promise<void>;
  appendCheckpoints(flow: string, checkpoints: readonly CheckpointPoint[]): Promise<void>;
  getValue(name: string): Promise<string | null>;
  setValue(name: string, value: string): Promise<void>;
}
