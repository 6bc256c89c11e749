import { type ConnectEndpoint, type Connector, getConnectorStatus, getMirrorSourceOffsets } from "@/lib/connect";
import { sleep } from "../processes";

/** Waits until a connector satisfies `ready` (e.g. all tasks PAUSED), polling its status. */
export async function waitForConnector(
  endpoint: ConnectEndpoint,
  name: string,
  ready: (c: Connector) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<Connector> {
  const deadline = Date.now() + timeoutMs;
  let last: Connector | null = null;
  while (Date.now() < deadline) {
    try {
      last = await getConnectorStatus(endpoint, name);
      if (ready(last)) return last;
    } catch {
      // Connect answers 404/409 during reconfiguration; keep polling.
    }
    await sleep(500);
  }
  const seen = last ? `${last.state} [${last.tasks.map((t) => `${t.id}=${t.state}`).join(", ")}]` : "no status";
  throw new Error(`connector ${name} did not become ${what} within ${timeoutMs / 1000}s (last: ${seen})`);
}

export const allTasks = (state: string) => (c: Connector) => c.state === state && c.tasks.length > 0 && c.tasks.every((t) => t.state === state);

/**
 * MM2's committed position for one source partition (offset of the last replicated record + 1),
 * read from Connect, once it has stopped changing across one offset flush (5 s in the sandbox).
 * A partition MM2 never replicated has no entry: position 0.
 */
export async function readSettledPosition(endpoint: ConnectEndpoint, connector: string, topic: string, partition: number, flushMs = 5000): Promise<bigint> {
  const read = async () => {
    const offsets = await getMirrorSourceOffsets(endpoint, connector);
    const entry = offsets.find((o) => o.topic === topic && o.partition === partition);
    return entry ? entry.offset + 1n : 0n;
  };
  let previous = await read();
  for (let i = 0; i < 12; i++) {
    await sleep(flushMs + 1000);
    const current = await read();
    if (current === previous) return current;
    previous = current;
  }
  throw new Error(`MM2's committed position of ${topic}/${partition} kept moving for a minute after pausing ${connector}`);
}
