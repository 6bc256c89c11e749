/**
 * MirrorCheckpointConnector's timing settings (apache/kafka connect/mirror/.../MirrorCheckpointConfig.java):
 * `emit.checkpoints.enabled` (default true) / `emit.checkpoints.interval.seconds` (default 60) and
 * `refresh.groups.enabled` (default true) / `refresh.groups.interval.seconds` (default 600). A disabled
 * setting becomes a negative interval there, which Scheduler.scheduleRepeating never runs; here null.
 */

/** How often MM2 emits checkpoints and looks for new groups; null = never. */
export interface CheckpointTiming {
  emitIntervalMs: number | null;
  refreshGroupsIntervalMs: number | null;
}

/** MM2's defaults: checkpoints every 60 s, new groups picked up every 600 s. */
export const defaultCheckpointTiming: CheckpointTiming = { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 };

/** Reads the timing from a checkpoint connector's config (values Connect would reject take the default). */
export function readCheckpointTiming(config: Readonly<Record<string, string>>): CheckpointTiming {
  return {
    emitIntervalMs: readInterval(config, "emit.checkpoints", defaultCheckpointTiming.emitIntervalMs),
    refreshGroupsIntervalMs: readInterval(config, "refresh.groups", defaultCheckpointTiming.refreshGroupsIntervalMs),
  };
}

function readInterval(config: Readonly<Record<string, string>>, prefix: string, fallbackMs: number | null): number | null {
  if (config[`${prefix}.enabled`]?.trim().toLowerCase() === "false") return null;
  const raw = config[`${prefix}.interval.seconds`];
  if (raw === undefined || !/^\s*-?\d+\s*$/.test(raw)) return fallbackMs;
  const seconds = Number(raw);
  return seconds > 0 ? seconds * 1000 : null;
}
