// Follows the in-process collector's cycles so soak events can wait for their effect to settle.
import type { Collector } from "@/lib/collector/collector";
import type { Flow, Snapshot } from "@/lib/collector/types";

export interface CycleWatch {
  latest(): Snapshot | null;
  /** Resolves with the first cycle taken after the call that satisfies `check`; rejects after `timeoutMs`. */
  waitFor(check: (s: Snapshot) => boolean, what: string, timeoutMs: number): Promise<Snapshot>;
}

export function watchCycles(collector: Collector): CycleWatch {
  let latest: Snapshot | null = null;
  const waiters = new Set<(s: Snapshot) => void>();
  collector.onCycle((current) => {
    latest = current;
    for (const waiter of [...waiters]) waiter(current);
  });
  return {
    latest: () => latest,
    waitFor(check, what, timeoutMs) {
      const since = Date.now();
      return new Promise((resolve, reject) => {
        const waiter = (s: Snapshot) => {
          if (s.takenAt < since || !check(s)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(s);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}

/** Data records MM2 has not copied yet, summed over the flow's partitions whose lag is known. */
function sumLag(flow: Flow): bigint {
  return flow.partitions.reduce((sum, p) => sum + (p.lag ?? 0n), 0n);
}

/**
 * The flow is back to normal: the source connector and all its tasks RUNNING, every partition
 * read (none unknown) and MM2 within `maxLag` records of the source in total (the workload keeps
 * producing, so a few records are always in flight).
 */
export function isFlowSettled(s: Snapshot, flowId: string, sourceConnector: string, maxLag: bigint): boolean {
  const flow = s.flows.find((f) => f.id === flowId);
  if (flow === undefined || flow.partitions.some((p) => p.unknown !== null)) return false;
  const connector = s.connect.flatMap((c) => c.connectors).find((c) => c.name === sourceConnector);
  if (connector === undefined || connector.state !== "RUNNING" || connector.tasks.length === 0) return false;
  return connector.tasks.every((t) => t.state === "RUNNING") && sumLag(flow) <= maxLag;
}
