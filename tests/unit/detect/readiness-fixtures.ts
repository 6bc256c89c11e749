import type { Snapshot } from "@/lib/collector/types";
import { makeCluster, makeConnect, makeConnector, makeFlow, makeFlowPartition, makeSnapshot, makeTopic, T0 } from "./fixtures";

/** The flow's three MM2 connectors, RUNNING. */
export const readinessConnectors = [
  makeConnector(),
  makeConnector({ name: "mm2-checkpoint", connectorClass: "org.apache.kafka.connect.mirror.MirrorCheckpointConnector" }),
  makeConnector({ name: "mm2-heartbeat", connectorClass: "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector" }),
];

/** A healthy flow: orders/2 copied, east.orders on west, connectors RUNNING, a heartbeat 2 s old. */
export function makeHealthySnapshot(over: Partial<Snapshot> = {}): Snapshot {
  const flow = makeFlow({
    partitions: [makeFlowPartition({ sourceLogEnd: 1000n, mm2Position: 1000n })],
    heartbeat: { latestTimestamp: T0 - 2_000, latencyMs: 2_000 },
  });
  return makeSnapshot({
    clusters: [
      makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }])] }),
      makeCluster("west", { topics: [makeTopic("east.orders", [{ partition: 2 }])] }),
    ],
    connect: [makeConnect(readinessConnectors)],
    flows: [flow],
    ...over,
  });
}
