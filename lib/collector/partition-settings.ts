import { defaultSourceTaskSettings, type SourceTaskSettings } from "@/lib/mm2";
import type { Flow, FlowPartition } from "./types";

/**
 * The MirrorSourceConnector settings that govern `partition`: those of the connector copying it in a flow split over
 * several connectors (each has its own `emit.offset-syncs.enabled` and `auto.offset.reset`), else the flow's; MM2's
 * defaults when unknown.
 */
export function readPartitionSettings(flow: Flow, partition: FlowPartition): SourceTaskSettings {
  const own = partition.sourceConnector === null ? undefined : flow.sourceSettingsByConnector?.[partition.sourceConnector];
  return own ?? flow.sourceTaskSettings ?? defaultSourceTaskSettings;
}
