import { classpathOf } from "./jars";
import { startConnectWorker, type SandboxConnectWorker } from "./connect-worker";
import { writeLogConfig } from "./log-config";
import { sandboxDir } from "./paths";
import { killRecordedProcess, stopRecordedProcess } from "./processes";
import { securedConnectOptions } from "./secured-sandbox";
import { bootstrapOf, type SandboxState } from "./state";

/** The pidfile name of the sandbox's Connect worker (connect-worker.ts starts it under it). */
const connectProcessName = "connect";

/**
 * Kills the sandbox's Kafka Connect worker with SIGKILL, as an OOM kill or a node loss does: no
 * graceful shutdown, so MM2's positions not yet flushed to Connect's offsets topic are lost and
 * MM2 copies those records again after a restart. Returns the PID it killed.
 */
export function killConnectWorker(): Promise<number> {
  return killRecordedProcess(connectProcessName);
}

/** Stops the sandbox's Connect worker gracefully: MM2's tasks commit their positions first. */
export function stopConnectWorker(): Promise<void> {
  return stopRecordedProcess(connectProcessName);
}

/**
 * Starts the sandbox's Connect worker again on the same REST port (state.json stays valid), with
 * its connectors and offsets read back from its internal topics on the target cluster.
 * `offsetFlushIntervalMs` sets how often MM2's positions are committed (production default 60 s);
 * `exactlyOnceSourceSupport` lets MM2's source connector run exactly-once (see
 * `exactlyOnceSourceConfig` in mm2-connectors.ts); `extraProperties` are appended to the worker's properties. A
 * secured sandbox's worker keeps its HTTPS listener.
 */
export async function restartConnectWorker(
  state: SandboxState,
  opts: { target?: string; offsetFlushIntervalMs?: number; exactlyOnceSourceSupport?: boolean; extraProperties?: string[] } = {},
): Promise<SandboxConnectWorker> {
  const port = Number(new URL(state.connect.url).port);
  const secured = state.secured ? { certificates: state.secured.certificates, connectHttpsPort: state.secured.connect.httpsPort } : null;
  return startConnectWorker({
    baseDir: sandboxDir,
    bootstrap: bootstrapOf(state, opts.target ?? "west"),
    classpath: classpathOf(state.jars),
    logOption: writeLogConfig(sandboxDir, state.kafkaVersion),
    port,
    offsetFlushIntervalMs: opts.offsetFlushIntervalMs,
    exactlyOnceSourceSupport: opts.exactlyOnceSourceSupport,
    ...withExtraProperties(await securedConnectOptions(secured, port), opts.extraProperties ?? []),
  });
}

/** The secured options' worker properties followed by the caller's (later lines win in Java properties). */
function withExtraProperties(options: { port?: number; extraProperties?: string[] }, extra: string[]) {
  return { ...options, extraProperties: [...(options.extraProperties ?? []), ...extra] };
}

/**
 * Starts a second Connect worker in the sandbox's group (same internal topics on `west`), tracked as `connect-2` on
 * a free REST port, with `extraProperties` appended; stop it with `stopProcess(worker.process)`.
 */
export function startSecondConnectWorker(state: SandboxState, extraProperties: string[] = []): Promise<SandboxConnectWorker> {
  return startConnectWorker({
    baseDir: sandboxDir,
    bootstrap: bootstrapOf(state, "west"),
    classpath: classpathOf(state.jars),
    logOption: writeLogConfig(sandboxDir, state.kafkaVersion),
    extraProperties,
    name: "connect-2",
  });
}
