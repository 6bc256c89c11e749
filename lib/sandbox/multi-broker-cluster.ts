import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { findFreePort } from "./free-port";
import { createClusterId, formatStorage, waitForBroker } from "./kraft-cluster";
import { baseJvmOptions } from "./log-config";
import { killRecordedProcess, type ManagedProcess, sleep, spawnJava, stopProcess } from "./processes";

const log = getLogger("sandbox.multi-broker");

/** The controller's node id; brokers are 1..N, as operators number them. */
const controllerNodeId = 100;

/** One broker JVM of a multi-broker cluster; `process` is replaced when it is restarted. */
export interface BrokerNode {
  nodeId: number;
  port: number;
  address: string;
  /** Holds server.properties, server.log and the log directory `log/`. */
  dataDir: string;
  configFile: string;
  logFile: string;
  process: ManagedProcess;
}

/** A KRaft cluster of one controller JVM and N broker JVMs, each tracked by PID. */
export interface MultiBrokerCluster {
  alias: string;
  /** Every broker's address, comma-separated (Kafka's bootstrap.servers form). */
  bootstrap: string;
  controller: ManagedProcess;
  brokers: BrokerNode[];
  classpath: string;
  logOption: string;
}

export interface StartMultiBrokerOptions {
  alias: string;
  baseDir: string;
  classpath: string;
  logOption: string;
  /** Default 3. */
  brokers?: number;
  /**
   * The controller's broker.session.timeout.ms (Kafka's default 9000): how long after a broker's
   * last heartbeat it is fenced, i.e. how long metadata still names a killed broker as leader.
   */
  brokerSessionTimeoutMs?: number;
  timeoutMs?: number;
}

/** JVM heaps: small, this runs beside the shared sandbox on 2 cores. */
const brokerHeapMb = 256;
const controllerHeapMb = 192;

/**
 * Starts a KRaft cluster with a separate controller and N brokers on loopback (every node formatted
 * with one cluster ID), each JVM in its own process group with a pidfile, and waits until every
 * broker answers metadata. Internal topics get replication factor 3 and min ISR 2 when N ≥ 3.
 */
export async function startMultiBrokerCluster(opts: StartMultiBrokerOptions): Promise<MultiBrokerCluster> {
  const count = opts.brokers ?? 3;
  const dir = path.join(opts.baseDir, opts.alias);
  const controllerPort = await findFreePort();
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await findFreePort());
  const voters = `${controllerNodeId}@127.0.0.1:${controllerPort}`;
  const clusterId = createClusterId();

  const controllerDir = path.join(dir, "controller");
  const controllerConfig = writeNodeConfig(controllerDir, controllerProperties(voters, controllerPort, controllerDir, opts.brokerSessionTimeoutMs));
  const nodes = ports.map((port, i) => {
    const nodeId = i + 1;
    const nodeDir = path.join(dir, `broker-${nodeId}`);
    const configFile = writeNodeConfig(nodeDir, brokerProperties({ nodeId, port, voters, logDir: path.join(nodeDir, "log"), replication: Math.min(3, count) }));
    return { nodeId, port, address: `127.0.0.1:${port}`, configFile, logFile: path.join(nodeDir, "server.log"), dataDir: nodeDir };
  });
  await Promise.all([{ configFile: controllerConfig, dataDir: controllerDir }, ...nodes].map((n) => formatOnce(opts, n.configFile, n.dataDir, clusterId)));

  const controller = spawnJava({
    name: `kafka-${opts.alias}-controller`,
    classpath: opts.classpath,
    mainClass: "kafka.Kafka",
    args: [controllerConfig],
    jvmOptions: [...baseJvmOptions(controllerHeapMb), opts.logOption],
    logFile: path.join(controllerDir, "server.log"),
  });
  const cluster: MultiBrokerCluster = {
    alias: opts.alias,
    bootstrap: nodes.map((n) => n.address).join(","),
    controller,
    brokers: nodes.map((n) => ({ ...n, process: spawnBroker(opts.alias, n, opts) })),
    classpath: opts.classpath,
    logOption: opts.logOption,
  };
  try {
    await Promise.all(cluster.brokers.map((b) => waitForBroker(`${opts.alias}-broker-${b.nodeId}`, b.address, b.process, opts.timeoutMs ?? 120_000)));
  } catch (err) {
    await stopMultiBrokerCluster(cluster);
    throw err;
  }
  log.info({ alias: opts.alias, bootstrap: cluster.bootstrap }, "multi-broker cluster ready");
  return cluster;
}

/** Stops every broker (in parallel, each by PID), then the controller. */
export async function stopMultiBrokerCluster(cluster: MultiBrokerCluster): Promise<void> {
  await Promise.all(cluster.brokers.map((b) => stopProcess(b.process)));
  await stopProcess(cluster.controller);
}

/**
 * Stops ONE broker by its PID: `graceful` sends SIGTERM (controlled shutdown: the controller moves
 * its leaderships first), otherwise SIGKILL (a crash: metadata keeps naming it until the
 * controller fences it after broker.session.timeout.ms). Its data and config stay for a restart.
 */
export async function stopClusterBroker(cluster: MultiBrokerCluster, nodeId: number, how: "graceful" | "kill"): Promise<void> {
  const broker = brokerOf(cluster, nodeId);
  if (how === "graceful") await stopProcess(broker.process);
  else await killRecordedProcess(broker.process.name);
  log.info({ alias: cluster.alias, nodeId, pid: broker.process.pid, how }, "broker stopped");
}

/** Starts a stopped broker again from its config (same node id, address and data) and waits until it answers. */
export async function restartClusterBroker(cluster: MultiBrokerCluster, nodeId: number, timeoutMs = 90_000): Promise<void> {
  const broker = brokerOf(cluster, nodeId);
  // The exit event can trail the PID's disappearance by a moment.
  if (!broker.process.hasExited()) await Promise.race([broker.process.exited, sleep(5000)]);
  if (!broker.process.hasExited()) throw new Error(`broker ${nodeId} of ${cluster.alias} is still running (pid ${broker.process.pid})`);
  broker.process = spawnBroker(cluster.alias, broker, cluster);
  await waitForBroker(`${cluster.alias}-broker-${nodeId}`, broker.address, broker.process, timeoutMs);
  log.info({ alias: cluster.alias, nodeId, pid: broker.process.pid }, "broker restarted");
}

/** Resident memory of the cluster's live JVMs in MiB, from /proc (what start-up costs). */
export function measureClusterRssMb(cluster: MultiBrokerCluster): number {
  const pids = [cluster.controller.pid, ...cluster.brokers.map((b) => b.process.pid)];
  return pids.reduce((sum, pid) => sum + readRssKb(pid), 0) / 1024;
}

function readRssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    // The process has exited: it holds no memory.
    return 0;
  }
}

function brokerOf(cluster: MultiBrokerCluster, nodeId: number): BrokerNode {
  const broker = cluster.brokers.find((b) => b.nodeId === nodeId);
  if (!broker) throw new Error(`cluster ${cluster.alias} has no broker ${nodeId} (it has ${cluster.brokers.map((b) => b.nodeId).join(", ")})`);
  return broker;
}

function spawnBroker(alias: string, node: { nodeId: number; configFile: string; logFile: string }, jvm: { classpath: string; logOption: string }): ManagedProcess {
  return spawnJava({
    name: `kafka-${alias}-broker-${node.nodeId}`,
    classpath: jvm.classpath,
    mainClass: "kafka.Kafka",
    args: [node.configFile],
    jvmOptions: [...baseJvmOptions(brokerHeapMb), jvm.logOption],
    logFile: node.logFile,
  });
}

function writeNodeConfig(dir: string, properties: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "server.properties");
  writeFileSync(file, properties);
  return file;
}

async function formatOnce(opts: { classpath: string; logOption: string }, configFile: string, dir: string, clusterId: string): Promise<void> {
  if (!existsSync(path.join(dir, "log", "meta.properties"))) await formatStorage(opts.classpath, configFile, opts.logOption, dir, clusterId);
}

function controllerProperties(voters: string, port: number, dir: string, sessionTimeoutMs: number | undefined): string {
  return [
    "process.roles=controller",
    `node.id=${controllerNodeId}`,
    `controller.quorum.voters=${voters}`,
    `listeners=CONTROLLER://127.0.0.1:${port}`,
    "controller.listener.names=CONTROLLER",
    "listener.security.protocol.map=CONTROLLER:PLAINTEXT",
    `log.dirs=${path.join(dir, "log")}`,
    "num.network.threads=1",
    "num.io.threads=1",
    ...(sessionTimeoutMs !== undefined ? [`broker.session.timeout.ms=${sessionTimeoutMs}`] : []),
    "",
  ].join("\n");
}

function brokerProperties(p: { nodeId: number; port: number; voters: string; logDir: string; replication: number }): string {
  const minIsr = Math.max(1, p.replication - 1);
  return [
    "process.roles=broker",
    `node.id=${p.nodeId}`,
    `controller.quorum.voters=${p.voters}`,
    `listeners=PLAINTEXT://127.0.0.1:${p.port}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${p.port}`,
    "controller.listener.names=CONTROLLER",
    "inter.broker.listener.name=PLAINTEXT",
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    `log.dirs=${p.logDir}`,
    "num.partitions=1",
    "num.network.threads=2",
    "num.io.threads=2",
    `default.replication.factor=${p.replication}`,
    `offsets.topic.replication.factor=${p.replication}`,
    "offsets.topic.num.partitions=5",
    `transaction.state.log.replication.factor=${p.replication}`,
    `transaction.state.log.min.isr=${minIsr}`,
    "transaction.state.log.num.partitions=5",
    `share.coordinator.state.topic.replication.factor=${p.replication}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    "group.initial.rebalance.delay.ms=0",
    "log.retention.check.interval.ms=5000",
    "log.segment.bytes=1048576",
    "log.cleaner.backoff.ms=2000",
    "delete.topic.enable=true",
    "auto.create.topics.enable=false",
    "",
  ].join("\n");
}
