/**
 * Detector thresholds: a zod schema (the config module embeds it under `thresholds:`) and the
 * defaults every omitted field takes.
 */
import { z } from "zod";

/** Validation schema of the detector thresholds; every field has a default. */
export const thresholdsSchema = z.object({
  /** REPLICATION_LAG when one partition has at least this many unreplicated records. */
  lagRecords: z.number().int().positive().default(10_000),
  /** REPLICATION_LAG when a flow has at least this many unreplicated records in total. */
  flowLagRecords: z.number().int().positive().default(100_000),
  /** REPLICATION_LAG when the heartbeat latency or the oldest unreplicated record is older. */
  lagSeconds: z.number().positive().default(300),
  /**
   * TASK_STALLED when MM2's position has not moved for this long while the source grew. Must exceed
   * Connect's offset.flush.interval.ms (default 60 s): the position is only published that often.
   */
  stallAfterMs: z.number().int().positive().default(120_000),
  /**
   * TASK_NOT_RUNNING when an MM2 connector or task has been UNASSIGNED or RESTARTING (not PAUSED or STOPPED on
   * purpose, not FAILED) for this long: a rebalance or a restart settles well within it.
   */
  notRunningAfterMs: z.number().int().positive().default(120_000),
  /** RETENTION_RISK when the oldest unreplicated record may be deleted within this horizon. */
  retentionHorizonMs: z.number().int().positive().default(3_600_000),
  /** TRANSLATION_ERROR (warning) when a group's failover replay exceeds this many records. */
  translationReplayRecords: z.number().int().positive().default(10_000),
  /**
   * CHECKPOINT_STALE: by default the threshold comes from each flow's checkpoint connector
   * (lib/detect/translation-detectors.ts resolveCheckpointStaleMs); set this only to override it for every flow.
   * For a group MM2 has never checkpointed it can only lengthen MM2's own time to discover the group.
   */
  checkpointStaleMs: z.number().int().positive().optional(),
  /**
   * TOPIC_MISSING_ON_TARGET when a topic MM2's filter matches has had no remote topic on the target this long.
   * MM2 creates a new source topic's remote topic on its next topic refresh (MirrorSourceConfig
   * refresh.topics.interval.seconds, default 600 s): a new topic not created yet is the look-alike, so the
   * default waits longer than one refresh.
   */
  targetTopicMissingMs: z.number().int().positive().default(900_000),
  /** Time to catch up: MM2's replication rate and the source's produce rate are measured over this window. */
  catchUpWindowMs: z.number().int().positive().default(300_000),
  /** Event findings (loss, reset, truncation) stay active this long after they were last seen. */
  eventHoldMs: z.number().int().positive().default(3_600_000),
});

/** Validated thresholds. */
export type Thresholds = z.infer<typeof thresholdsSchema>;

/** Thresholds with every default applied. */
export const defaultThresholds: Thresholds = thresholdsSchema.parse({});
