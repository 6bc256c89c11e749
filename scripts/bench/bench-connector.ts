import { type ConnectEndpoint, createStoppedConnector, deleteConnector, getConnectors, stopConnector } from "@/lib/connect";
import { defaultTopicsExclude } from "@/lib/mm2";
import { connectorNames, sourceConnectorConfig } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import type { SandboxState } from "@/lib/sandbox/state";

/**
 * A second MirrorSourceConnector of the flow whose topic filter takes `bench-.*`, kept STOPPED: MM2's
 * filter decides flow membership, so the benchmark topics belong to the flow while MM2 copies none of
 * them (a STOPPED connector has no tasks). Named after the sandbox's own source connector so that one
 * stays the flow's first source connector (by name).
 */
export interface BenchConnector {
  endpoint: ConnectEndpoint;
  name: string;
}

/**
 * Creates the connector STOPPED (KIP-980) before any benchmark topic exists, so it never copies a record: created
 * RUNNING and stopped after, it copied `heartbeats` again (MM2 replicates heartbeats topics whatever the filter) and
 * its offset syncs interleaved with the sandbox connector's in the shared offset-syncs topic (a bench run at load 13
 * saw syncs 75→151 then 75→150, read as TARGET_TRUNCATED). Stops it again (`PUT …/stop`) while Connect rebalances
 * (409), until Connect reports it STOPPED with no tasks.
 */
export async function createStoppedBenchConnector(state: SandboxState, source: string, target: string): Promise<BenchConnector> {
  const endpoint: ConnectEndpoint = { url: state.connect.url, timeoutMs: 15_000 };
  const name = `${connectorNames(source, target).source}-bench`;
  const cluster = (alias: string) => ({ alias, bootstrap: state.clusters[alias]!.bootstrap });
  const flow = { source: cluster(source), target: cluster(target) };
  await createStoppedConnector(endpoint, name, sourceConnectorConfig(flow, { topics: "bench-.*", "topics.exclude": defaultTopicsExclude }));
  const deadline = Date.now() + 120_000;
  let last = "not listed";
  while (Date.now() < deadline) {
    try {
      await stopConnector(endpoint, name);
      const connector = (await getConnectors(endpoint)).find((c) => c.name === name);
      last = connector ? `${connector.state}, ${connector.tasks.length} tasks` : "not listed";
      if (connector?.state === "STOPPED" && connector.tasks.length === 0) return { endpoint, name };
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(1000);
  }
  throw new Error(`benchmark source connector ${name} not STOPPED after 120 s (${last})`);
}

/** Deletes the benchmark's source connector (`DELETE /connectors/{name}`); stopped before any topic matched, it holds no offsets. */
export async function deleteBenchConnector(connector: BenchConnector): Promise<void> {
  await deleteConnector(connector.endpoint, connector.name);
}
