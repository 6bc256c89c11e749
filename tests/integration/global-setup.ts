import { startSandbox, type Sandbox } from "@/lib/sandbox/sandbox";

/**
 * Starts one real sandbox (two KRaft clusters, Kafka Connect, MM2 east->west) for all integration
 * test files, which run one after another and read `.gapwatch/sandbox/state.json`
 * (`readSandboxState()`); stops every JVM by PID afterwards. Secured: SASL_SSL and mTLS listeners and an HTTPS
 * Connect listener beside PLAINTEXT (security/tls-transport reads only through them; everything else is unchanged).
 */
let sandbox: Sandbox | null = null;

export async function setup(): Promise<void> {
  const started = Date.now();
  sandbox = await startSandbox({ secured: true });
  process.stderr.write(`[integration] sandbox up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(sandbox.state.clusters)}\n`);
}

export async function teardown(): Promise<void> {
  await sandbox?.stop();
}
