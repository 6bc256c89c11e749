import type { FlowConnectors } from "./types";

/**
 * The Connect cluster a flow's connector runs on: its own for a source connector on another Connect cluster than
 * the flow's first (`sourceClusters`), else the flow's.
 */
export function findConnectCluster(connectors: FlowConnectors, name: string | null): string | null {
  return (name === null ? undefined : connectors.sourceClusters?.[name]) ?? connectors.connectCluster;
}

/** Every Connect cluster the flow's connectors run on, the flow's first one first. */
export function listConnectClusters(connectors: FlowConnectors): string[] {
  const names = [connectors.connectCluster, ...Object.values(connectors.sourceClusters ?? {})];
  return [...new Set(names.filter((n): n is string => n !== null))];
}
