import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { getLogger } from "@/lib/logger";
import { findFreePort } from "./free-port";
import { baseJvmOptions } from "./log-config";
import { type ManagedProcess, sleep, spawnJava, tailFile } from "./processes";

const log = getLogger("sandbox.kraft");

/** One single-node KRaft cluster (broker and controller in one JVM) of the sandbox. */
export interface SandboxCluster {
  alias: string;
  bootstrap: string;
  port: number;
  controllerPort: number;
  dataDir: string;
  configFile: string;
  process: ManagedProcess;
  /** Bootstrap address of each extra listener, by listener name. */
  listenerBootstraps: Record<string, string>;
}

/**
 * A listener beside PLAINTEXT (sandbox option for secured clients): its own port and the broker properties it needs
 * (e.g. `listener.name.<name lowercased>.…`, `ssl.*`), written as given after the base configuration.
 */
export interface SandboxListener {
  /** Listener name, upper case, e.g. SASL_SSL or OAUTH. */
  name: string;
  protocol: "SSL" | "SASL_SSL" | "SASL_PLAINTEXT";
  port: number;
  properties: string[];
}

export interface StartClusterOptions {
  alias: string;
  baseDir: string;
  classpath: string;
  logOption: string;
  /** Reuse these ports (a restart of a stopped broker keeps its address). */
  port?: number;
  controllerPort?: number;
  timeoutMs?: number;
  /** Listeners beside PLAINTEXT (which the sandbox's own tools, MM2 and inter-broker traffic keep using). */
  extraListeners?: SandboxListener[];
  /** Broker properties appended last (e.g. an authorizer); later lines win in Java properties. */
  extraProperties?: string[];
  /** JVM options appended to the broker's (e.g. a `-D` system property a listener needs). */
  extraJvmOptions?: string[];
  /** Arguments added to `kafka-storage format` on the first start (e.g. `--add-scram` for a SCRAM user). */
  formatArguments?: string[];
}

/**
 * Formats (first start only) and starts a single-node KRaft cluster on loopback, then waits until
 * it answers metadata requests. Fails with the last log lines when the JVM exits or times out.
 */
export async function startCluster(opts: StartClusterOptions): Promise<SandboxCluster> {
  const dataDir = path.join(opts.baseDir, opts.alias);
  const logDir = path.join(dataDir, "log");
  const configFile = path.join(dataDir, "server.properties");
  const port = opts.port ?? (await findFreePort());
  const controllerPort = opts.controllerPort ?? (await findFreePort());
  mkdirSync(logDir, { recursive: true });
  const extraListeners = opts.extraListeners ?? [];
  writeFileSync(configFile, serverProperties({ port, controllerPort, logDir, extraListeners, extraProperties: opts.extraProperties ?? [] }));
  if (!existsSync(path.join(logDir, "meta.properties"))) {
    await formatStorage(opts.classpath, configFile, opts.logOption, dataDir, undefined, opts.formatArguments);
  }

  const process = spawnJava({
    name: `kafka-${opts.alias}`,
    classpath: opts.classpath,
    mainClass: "kafka.Kafka",
    args: [configFile],
    jvmOptions: [...baseJvmOptions(512), opts.logOption, ...(opts.extraJvmOptions ?? [])],
    logFile: path.join(dataDir, "server.log"),
  });
  const bootstrap = `127.0.0.1:${port}`;
  await waitForBroker(opts.alias, bootstrap, process, opts.timeoutMs ?? 90_000);
  log.info({ alias: opts.alias, bootstrap }, "cluster ready");
  const listenerBootstraps = Object.fromEntries(extraListeners.map((l) => [l.name, `127.0.0.1:${l.port}`]));
  return { alias: opts.alias, bootstrap, port, controllerPort, dataDir, configFile, process, listenerBootstraps };
}

interface ServerPropertiesInput {
  port: number;
  controllerPort: number;
  logDir: string;
  extraListeners: SandboxListener[];
  extraProperties: string[];
}

function serverProperties(p: ServerPropertiesInput): string {
  const extra = p.extraListeners;
  const listeners = extra.map((l) => `,${l.name}://127.0.0.1:${l.port}`).join("");
  const protocols = extra.map((l) => `,${l.name}:${l.protocol}`).join("");
  return [
    "process.roles=broker,controller",
    "node.id=1",
    `controller.quorum.voters=1@127.0.0.1:${p.controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${p.port},CONTROLLER://127.0.0.1:${p.controllerPort}${listeners}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${p.port}${listeners}`,
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=PLAINTEXT",
    `listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${protocols}`,
    `log.dirs=${p.logDir}`,
    "num.partitions=1",
    "num.network.threads=2",
    "num.io.threads=2",
    "offsets.topic.replication.factor=1",
    "offsets.topic.num.partitions=5",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "transaction.state.log.num.partitions=5",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    "log.retention.check.interval.ms=5000",
    // Small segments, so that retention and compaction act within a test's lifetime.
    "log.segment.bytes=1048576",
    "log.cleaner.backoff.ms=2000",
    "delete.topic.enable=true",
    // Consumers of a deleted topic must not recreate it behind the topic-reset scenario's back.
    "auto.create.topics.enable=false",
    ...extra.flatMap((l) => l.properties),
    ...p.extraProperties,
    "",
  ].join("\n");
}

/** A new KRaft cluster ID, as Kafka's Uuid.randomUuid() makes them. */
export function createClusterId(): string {
  // An id starting with "-" would be parsed as an option (1 in 64).
  let clusterId = randomBytes(16).toString("base64url");
  while (clusterId.startsWith("-")) clusterId = randomBytes(16).toString("base64url");
  return clusterId;
}

/** Formats one KRaft node's log directory (every node of a cluster with the same cluster ID). */
export function formatStorage(
  classpath: string, configFile: string, logOption: string, dataDir: string, clusterId = createClusterId(), extraArgs: string[] = [],
): Promise<void> {
  // Asynchronous, so that the nodes of a multi-broker cluster are formatted in parallel.
  const args = [...baseJvmOptions(256), logOption, "-cp", classpath, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", configFile, ...extraArgs];
  return new Promise((resolve, reject) => {
    execFile("java", args, { encoding: "utf8" }, (err, stdout, stderr) => {
      if (!err) return resolve();
      const code = typeof err.code === "number" ? err.code : null;
      reject(new Error(`formatting KRaft storage in ${dataDir} failed (exit ${code}):\n${stdout}\n${stderr}`));
    });
  });
}

export async function waitForBroker(alias: string, bootstrap: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const kafka = new Kafka({ clientId: "gapwatch-sandbox-probe", brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(`Kafka broker "${alias}" exited during start-up. Last log lines of ${proc.logFile}:\n${tailFile(proc.logFile)}`);
    }
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      await admin.listTopics();
      return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
      // LEADER_NOT_AVAILABLE is the broker's metadata answer: it is up, and some partition is OFFLINE (unclean
      // election off and its ISR down, tests/integration/real-clusters/unclean-election; Kafka before 3.9 does not
      // elect uncleanly from the topic config in KRaft mode), which is the cluster's state, not this broker's.
      if (isLeaderNotAvailable(err)) return;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await sleep(500);
  }
  throw new Error(
    `Kafka broker "${alias}" at ${bootstrap} did not answer metadata within ${timeoutMs / 1000}s (last error: ${lastError}). ` +
      `Last log lines of ${proc.logFile}:\n${tailFile(proc.logFile)}`,
  );
}

/** kafkajs's LEADER_NOT_AVAILABLE, raised as is or as the `cause` of KafkaJSNumberOfRetriesExceeded. */
function isLeaderNotAvailable(err: unknown): boolean {
  for (let e: unknown = err; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    if ((e as { type?: unknown }).type === "LEADER_NOT_AVAILABLE") return true;
  }
  return false;
}
