import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { classpathOf } from "./jars";
import { baseJvmOptions, writeLogConfig } from "./log-config";
import { pidDir, sandboxDir } from "./paths";
import { sleep, spawnJava, stopProcess } from "./processes";
import type { SandboxState } from "./state";
import { sandboxKafka } from "./topics";

const log = getLogger("sandbox.broker-control");

/**
 * Stops one sandbox broker by the PID in its pidfile (from any process, e.g. a test worker),
 * keeping its data and config so `restartBroker` brings it back on the same address.
 */
export async function stopBroker(alias: string): Promise<void> {
  const file = path.join(pidDir, `kafka-${alias}.pid`);
  if (!existsSync(file)) throw new Error(`no pidfile for broker ${alias} (${file}); is the sandbox running?`);
  const { pid } = JSON.parse(readFileSync(file, "utf8")) as { pid: number };
  await stopProcess({ name: `kafka-${alias}`, pid });
  log.info({ alias, pid }, "broker stopped");
}

/** Starts a stopped sandbox broker again from its server.properties and waits until it answers. */
export async function restartBroker(state: SandboxState, alias: string, timeoutMs = 90_000): Promise<void> {
  const dataDir = path.join(sandboxDir, alias);
  const configFile = path.join(dataDir, "server.properties");
  if (!existsSync(configFile)) throw new Error(`no ${configFile}; was broker ${alias} ever started?`);
  spawnJava({
    name: `kafka-${alias}`,
    classpath: classpathOf(state.jars),
    mainClass: "kafka.Kafka",
    args: [configFile],
    jvmOptions: [...baseJvmOptions(512), writeLogConfig(sandboxDir, state.kafkaVersion)],
    logFile: path.join(dataDir, "server.log"),
  });
  const bootstrap = state.clusters[alias]!.bootstrap;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const admin = sandboxKafka(bootstrap, "gapwatch-restart-probe").admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return;
    } catch {
      await sleep(500);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
  throw new Error(`broker ${alias} did not come back at ${bootstrap} within ${timeoutMs / 1000}s`);
}
