import type { ConnectConfig } from "@/lib/config";
import { getConnectors, toConnectEndpoint } from "@/lib/connect";
import { describeError } from "./cluster-poll";
import type { ConnectClusterSnapshot } from "./types";

/** One cycle's read of one Connect cluster: all connectors with status and config in one request. */
export async function pollConnect(config: ConnectConfig, previous: ConnectClusterSnapshot | null, now: number): Promise<ConnectClusterSnapshot> {
  try {
    const connectors = await getConnectors(toConnectEndpoint(config));
    return { name: config.name, url: config.url, reachable: true, error: null, dataAt: now, connectors };
  } catch (err) {
    return {
      name: config.name,
      url: config.url,
      reachable: false,
      error: describeError(err),
      dataAt: previous?.dataAt ?? null,
      connectors: previous?.connectors ?? [],
    };
  }
}
