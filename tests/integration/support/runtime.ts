import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type ConnectEndpoint, getConnectors, restartConnector } from "@/lib/connect";
import { getRuntime } from "@/lib/pipeline/runtime";
import type { Snapshot } from "@/lib/collector/types";
import { connectorNames, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { formatRemoteTopicName } from "@/lib/sandbox/remote-topic";
import type { SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { sandboxOffsetFlushMs } from "@/lib/sandbox/connect-worker";

/**
 * Points Gapwatch's runtime (config, collector, SQLite store) at the running sandbox, exactly as
 * the server does, but without starting the loop: tests drive cycles with `runCycle()`. `extraYaml` is
 * appended to the config (top-level keys such as `notifications:` or `metrics:`); `clusterYaml` adds keys to a
 * cluster's entry by alias (e.g. `sasl:` lines, indented as under `bootstrap:`); `moreConnect` adds Connect clusters
 * after the sandbox's (name and url).
 */
export function createSandboxRuntime(
  state: SandboxState,
  pollIntervalSeconds = 5,
  thresholds: Record<string, number> = {},
  extraYaml = "",
  clusterYaml: Record<string, string> = {},
  moreConnect: readonly { name: string; url: string }[] = [],
) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-it-"));
  const configFile = path.join(dir, "gapwatch.config.yaml");
  const clusters = Object.entries(state.clusters)
    .map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}${clusterYaml[alias] ? `\n${clusterYaml[alias]}` : ""}`)
    .join("\n");
  writeFileSync(configFile, `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\n    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}\n${moreConnect.map((c) => `  - name: ${c.name}\n    url: ${c.url}\n    offsetFlushIntervalMs: ${sandboxOffsetFlushMs}\n`).join("")}pollIntervalSeconds: ${pollIntervalSeconds}\nconfigRefreshCycles: 1\nthresholds: ${JSON.stringify(thresholds)}\n${extraYaml}`);
  process.env.GAPWATCH_CONFIG = configFile;
  process.env.GAPWATCH_DB = path.join(dir, "gapwatch.db");
  return getRuntime();
}

/** Calls a route handler the way Next.js does and returns its status and parsed JSON body. */
export async function callRoute<P extends Record<string, string>>(
  handler: (request: Request, ctx: { params: Promise<P> }) => Promise<Response> | Response,
  url: string,
  params: P,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await handler(new Request(`http://localhost${url}`), { params: Promise.resolve(params) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Runs collector cycles, one a second, until `check` holds for the newest snapshot; on timeout the
 * error names what it waited for and what `describe` shows of the last snapshot.
 */
export async function cycleUntil(
  collector: { runCycle(): Promise<Snapshot> },
  check: (s: Snapshot) => boolean,
  what: string,
  opts: { timeoutMs?: number; describe?: (s: Snapshot) => string } = {},
): Promise<Snapshot> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let snapshot = await collector.runCycle();
  while (!check(snapshot)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${opts.describe ? `: ${opts.describe(snapshot)}` : ""}`);
    await sleep(1000);
    snapshot = await collector.runCycle();
  }
  return snapshot;
}

/**
 * Later files share the sandbox: deletes what a file created, per cluster (its topics, and groups when given);
 * a topic or group already gone is not an error.
 */
export async function deleteLeftovers(items: readonly { bootstrap: string; topics: string[]; groups?: string[] }[]): Promise<void> {
  for (const { bootstrap, topics, groups } of items) {
    const admin = sandboxKafka(bootstrap).admin();
    await admin.connect();
    if (groups !== undefined) await admin.deleteGroups(groups).catch(() => undefined);
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  }
}

/** Written only by `waitUntilReplicating`: one partition, replicated by MM2's `.*` filter like any workload topic. */
const replicationProbeTopic = "it-replication-probe";
/** How long a RUNNING MM2 may copy nothing before its source connector and tasks are restarted (once). */
const stuckAfterMs = 45_000;

/**
 * Waits until the shared sandbox copies east -> west again after a file disturbed it (a broker or worker restart, a
 * paused or reconfigured connector): MM2's source, checkpoint and heartbeat connectors RUNNING, then a record produced
 * now on east present on west (the remote topic's log end reaches the source's). RUNNING alone is not enough: after
 * collector/flow-model restarted west's broker, faults/detection timed out because MM2 had not resumed copying (CI,
 * 2026-12-02); a source task still stuck after 45 s is restarted once, and said so.
 */
export async function waitUntilReplicating(state: SandboxState, timeoutMs = 150_000): Promise<void> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  const endpoint = { url: state.connect.url };
  const { source, checkpoint, heartbeat } = connectorNames("east", "west");
  // The checkpoint connector too (it has no task while no group is there to checkpoint), so that the next file's new
  // groups wait only for MM2's group refresh, not for the connector's own start.
  await waitForConnectorsRunning(endpoint, [source, checkpoint, heartbeat], timeoutMs, [checkpoint]);
  const east = state.clusters.east!.bootstrap;
  const west = state.clusters.west!.bootstrap;
  await ensureTopics(east, [{ topic: replicationProbeTopic, partitions: 1 }]);
  const producer = sandboxKafka(east, "gapwatch-it-replication-probe").producer();
  await producer.connect();
  try {
    await producer.send({ topic: replicationProbeTopic, acks: -1, messages: [{ value: `probe ${new Date().toISOString()}` }] });
  } finally {
    await producer.disconnect();
  }
  const sourceEnd = (await fetchLogEnds(east, replicationProbeTopic)).get(0)!.high;
  const remote = formatRemoteTopicName("east", replicationProbeTopic);
  const say = (what: string) => void process.stderr.write(`[integration] ${what} ${((Date.now() - started) / 1000).toFixed(1)} s after the check began\n`);
  let restarted = false;
  let targetEnd: bigint | null = null;
  while (Date.now() < deadline) {
    // The remote topic appears once MM2's topic refresh (5 s) has seen the probe topic.
    targetEnd = (await fetchLogEnds(west, remote).catch(() => null))?.get(0)?.high ?? null;
    if (targetEnd !== null && targetEnd >= sourceEnd) {
      say("sandbox replicating again");
      return;
    }
    if (!restarted && Date.now() - started > stuckAfterMs) {
      restarted = true;
      say(`MM2 RUNNING but ${remote} at ${targetEnd ?? "(missing)"} < ${sourceEnd}: restarting ${source} and its tasks`);
      await restartConnector(endpoint, source, false).catch(() => undefined);
    }
    await sleep(500);
  }
  throw new Error(`MM2 copied no fresh record in ${timeoutMs / 1000}s: ${remote} ends at ${targetEnd ?? "(missing)"}, source at ${sourceEnd}`);
}

/**
 * Waits until every task of `connector` is PAUSED (Connect answers the pause at once; a task stops polling only when
 * its thread sees it), then 3 s more: a poll already under way ends within the consumer's poll timeout (1 s).
 */
export async function waitForTasksPaused(endpoint: ConnectEndpoint, connector: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = (await getConnectors(endpoint)).find((c) => c.name === connector);
    if (found !== undefined && found.tasks.length > 0 && found.tasks.every((t) => t.state === "PAUSED")) break;
    if (Date.now() > deadline) throw new Error(`${connector}'s tasks not PAUSED within 60 s: ${JSON.stringify(found?.tasks)}`);
    await sleep(500);
  }
  await sleep(3000);
}
