import { startSandbox, type Sandbox } from "@/lib/sandbox/sandbox";

/**
 * Starts one real sandbox (two KRaft clusters, Kafka Connect, MM2 east->west) for all integration
 * test files, which run one after another and read `.gapwatch/sandbox/state.json`
 * (`readSandboxState()`); stops every JVM by PID afterwards.
 */
let sandbox: Sandbox | null = null;

export async function setup(): Promise<void> {
  const started = Date.now();
  sandbox = await startSandbox();
  process.stderr.write(`[integration] sandbox up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(sandbox.state.clusters)}\n`);
}

export async function teardown(): Promise<void> {
  await sandbox?.stop();
}
