import type { Browser } from "@playwright/test";
import type { Stack } from "../stack";
import type { BenchRuntime } from "./bench-collector";
import { type BenchConnector, deleteBenchConnector } from "./bench-connector";
import { type BenchTopicAdmins, deleteTopicsMatching, isBenchTopic } from "./bench-topics";
import type { NaivePoller } from "./naive-poller";
import type { BenchReport } from "./report";

/** Everything a run starts, so that one place stops it (by PID for processes), also on Ctrl-C. */
export interface BenchResources {
  stack: Stack | null;
  admins: BenchTopicAdmins | null;
  /** The STOPPED source connector that puts the benchmark topics in the flow. */
  benchConnector: BenchConnector | null;
  /** Phase 1's collector with the server's pipeline and a store of its own. */
  runtime: BenchRuntime | null;
  naive: NaivePoller | null;
  browser: Browser | null;
}

export function createResources(): BenchResources {
  return { stack: null, admins: null, benchConnector: null, runtime: null, naive: null, browser: null };
}

/**
 * Closes the clients, removes the benchmark's topics from both clusters (also after a failure), then
 * its source connector (not before: the topics would leave the flow first), closes the browser and
 * stops the stack: dashboard, workload, Connect and brokers by PID.
 */
export async function stopResources(res: BenchResources, report: BenchReport): Promise<void> {
  await res.naive?.close();
  await res.runtime?.stop();
  if (res.admins) {
    const { sourceAlias } = res.admins;
    const ms = await deleteTopicsMatching(res.admins, (t) => isBenchTopic(sourceAlias, t)).catch((err: unknown) => {
      report.errors.push(`deleting benchmark topics: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    });
    if (report.deleteSeconds === null && ms !== null) report.deleteSeconds = ms / 1000;
    await res.admins.close();
  }
  await removeBenchConnector(res, report);
  await res.browser?.close().catch(() => undefined);
  await res.stack?.stop();
}

/** Deletes the benchmark's source connector if it still exists; a failure is recorded, not thrown. */
export async function removeBenchConnector(res: BenchResources, report: BenchReport): Promise<void> {
  if (!res.benchConnector) return;
  const connector = res.benchConnector;
  res.benchConnector = null;
  await deleteBenchConnector(connector).catch((err: unknown) => {
    report.errors.push(`deleting source connector ${connector.name}: ${err instanceof Error ? err.message : String(err)}`);
  });
}
