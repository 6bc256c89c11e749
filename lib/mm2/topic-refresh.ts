/**
 * How often a MirrorSourceConnector looks for new topics and partitions (apache/kafka connect/mirror/.../
 * MirrorSourceConfig.refreshTopicsInterval): `refresh.topics.enabled` (default true) and
 * `refresh.topics.interval.seconds` (default 600). Disabled, the interval is negative and Scheduler never runs
 * refreshTopicPartitions: MM2 then creates new remote topics and partitions only when the connector starts.
 */

/** MM2's default topic refresh interval. */
export const defaultTopicRefreshMs = 600_000;

/** The connector's topic refresh interval in ms; null = refresh off (values Connect would reject take the default). */
export function readTopicRefreshMs(config: Readonly<Record<string, string>>): number | null {
  if (config["refresh.topics.enabled"]?.trim().toLowerCase() === "false") return null;
  const raw = config["refresh.topics.interval.seconds"];
  if (raw === undefined || !/^\s*-?\d+\s*$/.test(raw)) return defaultTopicRefreshMs;
  const seconds = Number(raw);
  return seconds > 0 ? seconds * 1000 : null;
}

/**
 * The longest topic refresh among a flow's source connectors (null only when every one has it off): a topic or
 * partition can legitimately wait that long, whichever connector copies it (a connector with refresh off follows
 * only on restart, so it lengthens no wait).
 */
export function combineTopicRefreshMs(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}
