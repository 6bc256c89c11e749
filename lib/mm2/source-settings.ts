/**
 * MirrorSourceConnector settings that change what MM2's positions and Gapwatch's losses mean (apache/kafka
 * connect/mirror/.../MirrorConnectorConfig.java, MirrorSourceTask.java):
 * - `emit.offset-syncs.enabled` (default true; KIP-1031, Kafka 3.9+): false makes MirrorSourceTask write no offset
 *   syncs, and MirrorCheckpointConfig.validate refuses the checkpoint connector ("can't run without offset syncs"):
 *   no translation, no checkpoints; positions come from Connect's offset flushes alone.
 * - `auto.offset.reset` of MirrorSourceTask's consumer: sourceConsumerConfig applies `consumer.` and then
 *   `source.consumer.` (the later wins) and puts "earliest" when neither sets it. "latest" (honoured since 3.7)
 *   makes MM2 start new partitions, and recover from an out-of-range position, at the log end: it skips records on
 *   purpose.
 */

/** The MirrorSourceConnector settings Gapwatch reads; absent on a flow = MM2's defaults. */
export interface SourceTaskSettings {
  /** `emit.offset-syncs.enabled`. */
  offsetSyncsEnabled: boolean;
  /** The consumer's `auto.offset.reset`, lower-cased: "earliest" (MM2's default), "latest", "none" or as set. */
  autoOffsetReset: string;
}

/** MM2's defaults (MirrorConnectorConfig.EMIT_OFFSET_SYNCS_ENABLED_DEFAULT, sourceConsumerConfig's putIfAbsent). */
export const defaultSourceTaskSettings: SourceTaskSettings = { offsetSyncsEnabled: true, autoOffsetReset: "earliest" };

/** Reads the settings from a MirrorSourceConnector's config (anything but "false" keeps syncs on, as ConfigDef). */
export function readSourceTaskSettings(config: Readonly<Record<string, string>>): SourceTaskSettings {
  const reset = config["source.consumer.auto.offset.reset"] ?? config["consumer.auto.offset.reset"];
  return {
    offsetSyncsEnabled: config["emit.offset-syncs.enabled"]?.trim().toLowerCase() !== "false",
    autoOffsetReset: reset?.trim().toLowerCase() || defaultSourceTaskSettings.autoOffsetReset,
  };
}
