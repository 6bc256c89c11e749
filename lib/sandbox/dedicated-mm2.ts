import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { baseJvmOptions } from "./log-config";
import { type ManagedProcess, sleep, spawnJava, stopProcess, tailFile } from "./processes";

const log = getLogger("sandbox.dedicated-mm2");

/** One flow of a dedicated-mode MM2 (`connect-mirror-maker.sh`): two clusters under their MM2 aliases. */
export interface DedicatedFlowSpec {
  source: { alias: string; bootstrap: string };
  target: { alias: string; bootstrap: string };
  /** `<source>-><target>.topics`: the topics MM2 copies (regex list). */
  topics: string;
  /** Worker `offset.flush.interval.ms` (sandbox default 5 s, as the Connect worker's). */
  offsetFlushIntervalMs?: number;
}

export interface DedicatedMm2 {
  process: ManagedProcess;
  configFile: string;
}

/**
 * The `mm2.properties` of a one-way dedicated MM2, written as Kafka's docs write it
 * (config/connect-mirror-maker.properties): `clusters`, `<alias>.bootstrap.servers`,
 * `<source>-><target>.enabled` and `.topics`, and replication factor 1 for every topic MM2 and its
 * Connect herder create (single-broker clusters). Intervals as the Connect-mode sandbox sets them.
 * `<target>-><source>` stays disabled with its heartbeats on, MM2's default: MirrorMakerConfig.clusterPairs
 * then also runs a heartbeat-only herder `<target>-><source>` (its MirrorSourceConnector stored with
 * `enabled=false`), whose heartbeats into `<source>` the flow copies as `<source>.heartbeats`, and
 * whose `mm2-offsets.<target>.internal` on the source names no flow.
 */
export function formatMm2Properties(spec: DedicatedFlowSpec): string {
  const { source, target } = spec;
  const pair = `${source.alias}->${target.alias}`;
  return [
    `clusters = ${source.alias}, ${target.alias}`,
    `${source.alias}.bootstrap.servers = ${source.bootstrap}`,
    `${target.alias}.bootstrap.servers = ${target.bootstrap}`,
    `${pair}.enabled = true`,
    `${pair}.topics = ${spec.topics}`,
    `${target.alias}->${source.alias}.enabled = false`,
    "replication.factor = 1",
    "checkpoints.topic.replication.factor = 1",
    "heartbeats.topic.replication.factor = 1",
    "offset-syncs.topic.replication.factor = 1",
    "offset.storage.replication.factor = 1",
    "status.storage.replication.factor = 1",
    "config.storage.replication.factor = 1",
    `offset.flush.interval.ms = ${spec.offsetFlushIntervalMs ?? 5000}`,
    "refresh.topics.interval.seconds = 5",
    "refresh.groups.interval.seconds = 5",
    "emit.checkpoints.interval.seconds = 5",
    "emit.heartbeats.interval.seconds = 1",
    "sync.group.offsets.enabled = true",
    "sync.group.offsets.interval.seconds = 5",
    "sync.topic.acls.enabled = false",
    "",
  ].join("\n");
}

/**
 * Starts `org.apache.kafka.connect.mirror.MirrorMaker mm2.properties` as a JVM tracked by PID
 * (pidfile `<name>.pid`), and waits until it logs that it started its herders. Whether its tasks
 * run is for the caller to wait for: dedicated MM2 has no public REST API, only its status topic.
 */
export async function startDedicatedMm2(opts: {
  name: string;
  baseDir: string;
  classpath: string;
  logOption: string;
  flow: DedicatedFlowSpec;
  timeoutMs?: number;
}): Promise<DedicatedMm2> {
  const dir = path.join(opts.baseDir, opts.name);
  mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, "mm2.properties");
  writeFileSync(configFile, formatMm2Properties(opts.flow));
  const logFile = path.join(dir, "mirror-maker.log");
  // A restart appends to the same log: only what this JVM writes counts.
  const logStart = readLog(logFile).length;
  const process = spawnJava({
    name: opts.name,
    classpath: opts.classpath,
    mainClass: "org.apache.kafka.connect.mirror.MirrorMaker",
    args: [configFile],
    jvmOptions: [...baseJvmOptions(512), opts.logOption],
    logFile,
  });
  await waitForLogLine(process, "Kafka MirrorMaker started", logStart, opts.timeoutMs ?? 90_000);
  log.info({ name: opts.name, pid: process.pid }, "dedicated MM2 started");
  return { process, configFile };
}

/** Stops the dedicated MM2 by its PID (SIGTERM: its herders stop their tasks and record them UNASSIGNED). */
export async function stopDedicatedMm2(mm2: DedicatedMm2): Promise<void> {
  await stopProcess(mm2.process, 60_000);
}

async function waitForLogLine(proc: ManagedProcess, line: string, from: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited()) throw new Error(`MirrorMaker exited during start-up. ${describeLog(proc)}`);
    if (readLog(proc.logFile).indexOf(line, from) >= 0) return;
    await sleep(500);
  }
  throw new Error(`MirrorMaker did not log "${line}" within ${timeoutMs / 1000}s. ${describeLog(proc)}`);
}

function describeLog(proc: ManagedProcess): string {
  return `Last log lines of ${proc.logFile}:\n${tailFile(proc.logFile)}`;
}

function readLog(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
