import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { findFreePort } from "./free-port";
import { baseJvmOptions } from "./log-config";
import { type ManagedProcess, sleep, spawnJava, tailFile } from "./processes";

const log = getLogger("sandbox.connect");

/** The sandbox worker's offset.flush.interval.ms unless a test asks for another. */
export const sandboxOffsetFlushMs = 5000;

export interface SandboxConnectWorker {
  url: string;
  port: number;
  process: ManagedProcess;
}

/**
 * Starts one Kafka Connect distributed worker whose own topics live on `bootstrap` (the MM2
 * target), with MM2's connectors on its classpath, and waits for its REST API.
 */
export async function startConnectWorker(opts: {
  baseDir: string;
  bootstrap: string;
  classpath: string;
  logOption: string;
  port?: number;
  timeoutMs?: number;
  /** Connect's offset.flush.interval.ms (sandbox default 5 s; production's default is 60 s). */
  offsetFlushIntervalMs?: number;
  /** `exactly.once.source.support=enabled` (KIP-618): source connectors may run exactly-once. */
  exactlyOnceSourceSupport?: boolean;
  /** Worker properties appended last (e.g. an HTTPS REST listener); later lines win in Java properties. */
  extraProperties?: string[];
  /** The tracked process name and directory under baseDir (default "connect"); a second worker of the group needs its own. */
  name?: string;
}): Promise<SandboxConnectWorker> {
  const name = opts.name ?? "connect";
  const dir = path.join(opts.baseDir, name);
  mkdirSync(dir, { recursive: true });
  const port = opts.port ?? (await findFreePort());
  const configFile = path.join(dir, "worker.properties");
  writeFileSync(
    configFile,
    [
      `bootstrap.servers=${opts.bootstrap}`,
      "group.id=gapwatch-sandbox-connect",
      "key.converter=org.apache.kafka.connect.json.JsonConverter",
      "value.converter=org.apache.kafka.connect.json.JsonConverter",
      "key.converter.schemas.enable=false",
      "value.converter.schemas.enable=false",
      "offset.storage.topic=connect-offsets",
      "offset.storage.replication.factor=1",
      "offset.storage.partitions=5",
      "config.storage.topic=connect-configs",
      "config.storage.replication.factor=1",
      "status.storage.topic=connect-status",
      "status.storage.replication.factor=1",
      "status.storage.partitions=1",
      // Lively by default: MM2's position in the offsets topic is at most 5 s old.
      `offset.flush.interval.ms=${opts.offsetFlushIntervalMs ?? sandboxOffsetFlushMs}`,
      `listeners=http://127.0.0.1:${port}`,
      "rest.advertised.host.name=127.0.0.1",
      `rest.advertised.port=${port}`,
      // Lets one heartbeat connector write to the source cluster (see mm2-connectors.ts).
      "connector.client.config.override.policy=All",
      "scheduled.rebalance.max.delay.ms=0",
      ...(opts.exactlyOnceSourceSupport ? ["exactly.once.source.support=enabled"] : []),
      ...(opts.extraProperties ?? []),
      "",
    ].join("\n"),
  );
  const process = spawnJava({
    name,
    classpath: opts.classpath,
    mainClass: "org.apache.kafka.connect.cli.ConnectDistributed",
    args: [configFile],
    jvmOptions: [...baseJvmOptions(768), opts.logOption],
    logFile: path.join(dir, "connect.log"),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForRest(url, process, opts.timeoutMs ?? 120_000);
  log.info({ url }, "Kafka Connect ready");
  return { url, port, process };
}

async function waitForRest(url: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(`Kafka Connect exited during start-up. Last log lines of ${proc.logFile}:\n${tailFile(proc.logFile)}`);
    }
    try {
      // /connectors answers only once the worker joined its group and read its config topic.
      const res = await fetch(`${url}/connectors`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      lastError = `HTTP ${res.status}`;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await sleep(500);
  }
  throw new Error(`Kafka Connect REST at ${url} did not come up within ${timeoutMs / 1000}s (last error: ${lastError}). Last log lines of ${proc.logFile}:\n${tailFile(proc.logFile)}`);
}
