import { mkdirSync, rmSync } from "node:fs";
import { getLogger } from "@/lib/logger";
import { startConnectWorker, type SandboxConnectWorker } from "./connect-worker";
import { classpathOf, ensureKafkaJars } from "./jars";
import { getKafkaVersion } from "./kafka-version";
import { startCluster, type SandboxCluster } from "./kraft-cluster";
import { type MultiBrokerCluster, startMultiBrokerCluster, stopMultiBrokerCluster } from "./multi-broker-cluster";
import { writeLogConfig } from "./log-config";
import { connectorNames, createFlowConnectors, type FlowClusters, waitForConnectorsRunning, waitForHeartbeatsCopied } from "./mm2-connectors";
import { sandboxDir, stateFile } from "./paths";
import { prepareSecuredSetup, securedClusterOptions, securedConnectOptions, securedSandboxOf, type SecuredSetup } from "./secured-sandbox";
import { stopProcess, stopStaleProcesses } from "./processes";
import { type SandboxState, writeSandboxState } from "./state";
import { ensureTopics, multiBrokerTopics, workloadTopics } from "./topics";

const log = getLogger("sandbox");

export interface SandboxOptions {
  /** MM2 aliases of the clusters; the first is the MM2 source, the second the target (default east, west). */
  aliases?: string[];
  /** Dashboard URL recorded in state.json, when the caller serves one. */
  dashboardUrl?: string | null;
  /** Create the workload topics on the source (default true). */
  createTopics?: boolean;
  /**
   * Brokers of the MM2 source cluster (default 1). With 3: a separate KRaft controller and 3
   * brokers; topics with replication factor 3 and min.insync.replicas=2 (`multiBrokerTopics`).
   */
  sourceBrokers?: 1 | 3;
  /**
   * A second MM2 flow run by the same Connect worker (both aliases from `aliases`), e.g. south -> west beside
   * east -> west: two regions aggregated into one DR site. Its source gets the workload topics, its four
   * connectors are created, and the start waits until both flows copy (each `<source>.heartbeats` on its target).
   */
  secondFlow?: { source: string; target: string };
  /**
   * TLS listeners beside PLAINTEXT (secured-sandbox.ts): SASL_SSL with SCRAM-SHA-512 and mutual TLS on each
   * single-broker cluster, an HTTPS REST listener requiring a client certificate on Connect; recorded in state.json.
   */
  secured?: boolean;
}

export interface Sandbox {
  state: SandboxState;
  clusters: Map<string, SandboxCluster>;
  /** The source cluster when it runs several brokers (`sourceBrokers: 3`); it is then not in `clusters`. */
  multiBrokerSource: MultiBrokerCluster | null;
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
  const second = opts.secondFlow ?? null;
  if (second) assertSecondFlow(second, aliases, opts.sourceBrokers ?? 1);
  const { kafkaVersion, jars, classpath, logOption } = await prepareSandbox();
  const clusters = new Map<string, SandboxCluster>();
  let connect: SandboxConnectWorker | null = null;
  let multiBrokerSource: MultiBrokerCluster | null = null;
  let secured: SecuredSetup | null = null;

  const stop = async () => {
    if (connect) await stopProcess(connect.process);
    await Promise.all([...clusters.values()].map((c) => stopProcess(c.process)));
    if (multiBrokerSource) await stopMultiBrokerCluster(multiBrokerSource);
    // Brokers restarted by a test (broker-control.ts) have new PIDs, known only by their pidfiles.
    await stopStaleProcesses();
    rmSync(stateFile, { force: true });
  };

  try {
    const multi = opts.sourceBrokers === 3;
    const single = multi ? aliases.filter((a) => a !== sourceAlias) : aliases;
    secured = opts.secured ? await prepareSecuredSetup(sandboxDir) : null;
    const securedOf = secured;
    const startOne = async (alias: string) =>
      startCluster({ alias, baseDir: sandboxDir, classpath, logOption, ...(securedOf ? await securedClusterOptions(securedOf) : {}) });
    const [started] = await Promise.all([
      Promise.all(single.map(startOne)),
      multi ? startMultiBrokerCluster({ alias: sourceAlias, baseDir: sandboxDir, classpath, logOption }).then((c) => (multiBrokerSource = c)) : null,
    ]);
    for (const c of started) clusters.set(c.alias, c);
    const source = multiBrokerSource ?? clusters.get(sourceAlias)!;
    const target = clusters.get(targetAlias)!;
    if (opts.createTopics ?? true) {
      await Promise.all([
        ensureTopics(source.bootstrap, multi ? multiBrokerTopics : workloadTopics),
        second ? ensureTopics(clusters.get(second.source)!.bootstrap, workloadTopics) : null,
      ]);
    }
    connect = await startConnectWorker({ baseDir: sandboxDir, bootstrap: target.bootstrap, classpath, logOption, ...(await securedConnectOptions(secured)) });
    const endpoint = { url: connect.url, timeoutMs: 15_000 };
    const flow = {
      source: { alias: sourceAlias, bootstrap: source.bootstrap, replicationFactor: multi ? 3 : 1 },
      target: { alias: targetAlias, bootstrap: target.bootstrap },
    };
    await createFlowConnectors(endpoint, flow);
    const flows: FlowClusters[] = [flow];
    if (second) {
      const bootstrapOf = (alias: string) => ({ alias, bootstrap: clusters.get(alias)!.bootstrap });
      flows.push({ source: bootstrapOf(second.source), target: bootstrapOf(second.target) });
      await createFlowConnectors(endpoint, flows[1]!);
    }
    const names = flows.map((f) => connectorNames(f.source.alias, f.target.alias));
    await waitForConnectorsRunning(endpoint, names.flatMap((n) => Object.values(n)), 120_000, names.map((n) => n.checkpoint));
    // The default sandbox's callers wait for what they need; with two flows the start proves both copy.
    if (second) await waitForHeartbeatsCopied(flows, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }

  const state: SandboxState = {
    kafkaVersion,
    jars,
    clusters: Object.fromEntries([...(multiBrokerSource ? [multiBrokerSource] : []), ...clusters.values()].map((c) => [c.alias, { bootstrap: c.bootstrap }])),
    connect: { url: connect.url },
    mm2: { mode: "connect" },
    dashboard: opts.dashboardUrl ? { url: opts.dashboardUrl } : null,
    startedAt: new Date().toISOString(),
    ...(secured ? { secured: securedSandboxOf(secured, clusters) } : {}),
  };
  writeSandboxState(state);
  log.info({ clusters: state.clusters, connect: state.connect.url }, "sandbox ready");

  return {
    state,
    clusters,
    multiBrokerSource,
    connect,
    stop,
  };
}

/** A second flow joins two single-broker clusters of the sandbox, in another direction than the first. */
function assertSecondFlow(second: { source: string; target: string }, aliases: string[], sourceBrokers: 1 | 3): void {
  const [first, firstTarget] = aliases;
  const known = second.source !== second.target && aliases.includes(second.source) && aliases.includes(second.target);
  const distinct = second.source !== first || second.target !== firstTarget;
  if (!known || !distinct || sourceBrokers !== 1) {
    throw new Error(
      `a second flow ${second.source} -> ${second.target} must join two single-broker clusters of ${aliases.join(", ")} ` +
        `in another direction than ${first} -> ${firstTarget}`,
    );
  }
}

/**
 * What every sandbox start does first: stops leftovers of a crashed run (by pidfile), wipes the data
 * directory, resolves the Kafka jars and writes the logging config.
 */
export async function prepareSandbox(): Promise<{ kafkaVersion: string; jars: string; classpath: string; logOption: string }> {
  const stale = await stopStaleProcesses();
  if (stale.length > 0) log.warn({ stale }, "stopped processes left by an earlier sandbox run");
  rmSync(sandboxDir, { recursive: true, force: true });
  mkdirSync(sandboxDir, { recursive: true });
  const kafkaVersion = getKafkaVersion();
  const jars = await ensureKafkaJars(kafkaVersion);
  return { kafkaVersion, jars, classpath: classpathOf(jars), logOption: writeLogConfig(sandboxDir, kafkaVersion) };
}

/** Updates the dashboard URL in state.json once the caller's server is listening. */
export function recordDashboardUrl(sandbox: Sandbox, url: string): void {
  sandbox.state = { ...sandbox.state, dashboard: { url } };
  writeSandboxState(sandbox.state);
}
