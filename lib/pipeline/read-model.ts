import type { AlertRecord, RiskRecord } from "@/lib/alerts/types";
import type { FlowAuditView } from "@/lib/audit";
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { FlowTranslation } from "@/lib/translation";
import type { ProgressReading } from "./progress-window";

/**
 * What one cycle leaves for the pages and the API: the snapshot, and everything the pipeline computed from it
 * once (translations of every flow, alerts and risks after the cycle). Pages and routes read the latest one and
 * never translate or detect per request. Immutable: a new cycle replaces it whole.
 */
export interface ReadModel {
  snapshot: Snapshot;
  history: CollectorHistory;
  /** Per flow id; a flow whose translation failed this cycle is absent (its groups are unknown). */
  translations: ReadonlyMap<string, FlowTranslation>;
  /** Why a flow's translation is missing, per flow id. */
  translationErrors: ReadonlyMap<string, string>;
  alerts: readonly AlertRecord[];
  risks: readonly RiskRecord[];
  /** MM2's positions and the source log ends now and at the start of the catch-up window (time to catch up). */
  progress: ProgressReading;
  /** The content audit per flow id (lib/audit), through this cycle's audit; a flow never audited is absent. */
  audit: ReadonlyMap<string, FlowAuditView>;
  /** When the pipeline finished this cycle (the snapshot's own time is `snapshot.takenAt`). */
  builtAt: number;
  /**
   * A published model only (served-read-model.ts), whose `history` keeps a partition's newest offset syncs: how many
   * the collector holds, per key where it holds more than were kept.
   */
  offsetSyncsHeld?: ReadonlyMap<string, number>;
  /**
   * A published model of a collector sharing the work (config `scaleOut`): the shards its cycle held. A web instance
   * serves a dead collector's flows until a newer model holds their shards (shard-coverage.ts). Absent otherwise.
   */
  shardHolding?: ShardHolding;
}

/** The shards (of `count`) whose flows, clusters in no flow and alerts a collector's cycle polled and judged. */
export interface ShardHolding {
  readonly count: number;
  readonly held: readonly number[];
}
