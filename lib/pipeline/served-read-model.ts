import type { ClusterSnapshot, ConnectClusterSnapshot, ConsumerGroupState, Flow, OffsetSyncPoint } from "@/lib/collector/types";
import { copyFlowKeepingRows } from "@/lib/collector/flow-rows";
import { redactConnectorConfig } from "@/lib/connect/connector-config";
import type { Connector } from "@/lib/connect";
import { readSyncHistories, type SyncHistories, type SyncHistorySource } from "@/lib/collector/sync-history";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import type { ReadModel } from "./read-model";
import { ServedSyncHistories } from "./served-sync-histories";

/** The newest offset syncs of a partition its page lists (the collector holds up to 20,000 per partition). */
export const servedOffsetSyncs = 64;

/**
 * The read model as a collector publishes it: only what pages and API routes read, every answer the same as from the
 * full model. Of each partition's offset syncs the newest `servedOffsetSyncs`, with how many the collector holds in
 * `offsetSyncsHeld` where it holds more (the page numbers and counts them); of each consumer group on a cluster no
 * offsets (pages count the groups and their read errors; a flow's groups and offsets are in its translation). Connector
 * configs are redacted as pages show them (connector-config.ts): the published model sits in a store other processes
 * read, and credentials in a connector's config never need to.
 */
export function trimReadModel(model: ReadModel): ReadModel {
  const held = new Map(model.offsetSyncsHeld);
  const noteHeld = (key: string, length: number) => {
    if (!held.has(key)) held.set(key, length);
  };
  const histories = readSyncHistories(model.history.offsetSyncs);
  // The collector's store is copied as numbers, encoded as columns (served-sync-histories.ts); other sources are points.
  const offsetSyncs = histories instanceof SyncHistoryStore
    ? new ServedSyncHistories(histories, servedOffsetSyncs, noteHeld)
    : listNewestSyncs(histories, noteHeld);
  return {
    ...model,
    snapshot: {
      ...model.snapshot,
      clusters: model.snapshot.clusters.map(dropGroupOffsets),
      connect: model.snapshot.connect.map(redactConnectCluster),
      flows: model.snapshot.flows.map(redactDedicatedStatus),
    },
    history: { offsetSyncs },
    offsetSyncsHeld: held,
  };
}

/** Each key's newest `servedOffsetSyncs` syncs as points; `onTrimmed` hears of each key that holds more. */
function listNewestSyncs(histories: SyncHistories, onTrimmed: (key: string, held: number) => void): SyncHistorySource {
  const offsetSyncs = new Map<string, readonly OffsetSyncPoint[]>();
  for (const [key, syncs] of histories.entries()) {
    if (syncs.length > servedOffsetSyncs) onTrimmed(key, syncs.length);
    offsetSyncs.set(key, syncs.list(Math.max(0, syncs.length - servedOffsetSyncs)));
  }
  return offsetSyncs;
}

function dropGroupOffsets(cluster: ClusterSnapshot): ClusterSnapshot {
  return { ...cluster, groups: cluster.groups.map(dropOffsets) };
}

function dropOffsets(group: ConsumerGroupState): ConsumerGroupState {
  const trimmed: ConsumerGroupState = { ...group, offsets: [] };
  delete trimmed.shareOffsets;
  return trimmed;
}

function redactConnectCluster(cluster: ConnectClusterSnapshot): ConnectClusterSnapshot {
  return { ...cluster, connectors: cluster.connectors.map(redactConnector) };
}

function redactDedicatedStatus(flow: Flow): Flow {
  if (!flow.dedicatedStatus) return flow;
  // Not a spread: it would make the partitions the publication writes from the flow's rows (served-flows.ts).
  const redacted = copyFlowKeepingRows(flow);
  redacted.dedicatedStatus = { ...flow.dedicatedStatus, connectors: flow.dedicatedStatus.connectors.map(redactConnector) };
  return redacted;
}

function redactConnector(connector: Connector): Connector {
  return { ...connector, config: redactConnectorConfig(connector.config) };
}
