import { mkdirSync, rmSync } from "node:fs";
import { getLogger } from "@/lib/logger";
import { startConnectWorker, type SandboxConnectWorker } from "./connect-worker";
import { classpathOf, ensureKafkaJars } from "./jars";
import { getKafkaVersion } from "./kafka-version";
import { startCluster, type SandboxCluster } from "./kraft-cluster";
import { writeLogConfig } from "./log-config";
import { connectorNames, createFlowConnectors, waitForConnectorsRunning } from "./mm2-connectors";
import { sandboxDir, stateFile } from "./paths";
import { stopProcess, stopStaleProcesses } from "./processes";
import { type SandboxState, writeSandboxState } from "./state";
import { ensureTopics, workloadTopics } from "./topics";

const log = getLogger("sandbox");

export interface SandboxOptions {
  /** MM2 aliases of the clusters; the first is the MM2 source, the second the target (default east, west). */
  aliases?: string[];
  /** Dashboard URL recorded in state.json, when the caller serves one. */
  dashboardUrl?: string | null;
  /** Create the workload topics on the source (default true). */
  createTopics?: boolean;
}

export interface Sandbox {
  state: SandboxState;
  clusters: Map<string, SandboxCluster>;
  connect: SandboxConnectWorker;
  /** Stops Connect, then the brokers, each by its PID. */
  stop(): Promise<void>;
}

/**
 * Starts the sandbox from scratch: stops leftovers of a crashed run (by pidfile), wipes the data
 * directory, resolves the Kafka jars, starts N single-node KRaft clusters and one Connect worker
 * on the target running MM2 for `aliases[0] -> aliases[1]`, waits until all runs, writes state.json.
 */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const aliases = opts.aliases ?? ["east", "west"];
  if (aliases.length < 2) throw new Error("the sandbox needs at least two clusters (an MM2 source and a target)");
  const [sourceAlias, targetAlias] = aliases as [string, string];
  const stale = await stopStaleProcesses();
  if (stale.length > 0) log.warn({ stale }, "stopped processes left by an earlier sandbox run");
  rmSync(sandboxDir, { recursive: true, force: true });
  mkdirSync(sandboxDir, { recursive: true });

  const kafkaVersion = getKafkaVersion();
  const jars = await ensureKafkaJars(kafkaVersion);
  const classpath = classpathOf(jars);
  const logOption = writeLogConfig(sandboxDir, kafkaVersion);
  const clusters = new Map<string, SandboxCluster>();
  let connect: SandboxConnectWorker | null = null;

  const stop = async () => {
    if (connect) await stopProcess(connect.process);
    await Promise.all([...clusters.values()].map((c) => stopProcess(c.process)));
    // Brokers restarted by a test (broker-control.ts) have new PIDs, known only by their pidfiles.
    await stopStaleProcesses();
    rmSync(stateFile, { force: true });
  };

  try {
    const started = await Promise.all(aliases.map((alias) => startCluster({ alias, baseDir: sandboxDir, classpath, logOption })));
    for (const c of started) clusters.set(c.alias, c);
    const source = clusters.get(sourceAlias)!;
    const target = clusters.get(targetAlias)!;
    if (opts.createTopics ?? true) await ensureTopics(source.bootstrap, workloadTopics);
    connect = await startConnectWorker({ baseDir: sandboxDir, bootstrap: target.bootstrap, classpath, logOption });
    const endpoint = { url: connect.url, timeoutMs: 15_000 };
    const flow = { source: { alias: sourceAlias, bootstrap: source.bootstrap }, target: { alias: targetAlias, bootstrap: target.bootstrap } };
    await createFlowConnectors(endpoint, flow);
    const names = connectorNames(sourceAlias, targetAlias);
    await waitForConnectorsRunning(endpoint, Object.values(names), 120_000, [names.checkpoint]);
  } catch (err) {
    await stop();
    throw err;
  }

  const state: SandboxState = {
    kafkaVersion,
    jars,
    clusters: Object.fromEntries([...clusters].map(([alias, c]) => [alias, { bootstrap: c.bootstrap }])),
    connect: { url: connect.url },
    dashboard: opts.dashboardUrl ? { url: opts.dashboardUrl } : null,
    startedAt: new Date().toISOString(),
  };
  writeSandboxState(state);
  log.info({ clusters: state.clusters, connect: state.connect.url }, "sandbox ready");

  return {
    state,
    clusters,
    connect,
    stop,
  };
}

/** Updates the dashboard URL in state.json once the caller's server is listening. */
export function recordDashboardUrl(sandbox: Sandbox, url: string): void {
  sandbox.state = { ...sandbox.state, dashboard: { url } };
  writeSandboxState(sandbox.state);
}
