import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { type ManagedProcess, sleep, spawnTracked, stopProcess, tailFile } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";

/** Distinctive values, one per secret-bearing setting; none may ever leave the server. */
export const secrets = {
  saslPassword: "sasl-Pw-7f3K9xQ2",
  connectPassword: "connect-Pw-Lm4R8tZ1",
  urlUserInfoPassword: "userinfo-Pw-Q8sN2vB5",
  adminSecret: "admin-Secret-Hq6T1wP9zK",
  webhookToken: "webhook-Tok-Vx3M7cJ4",
};

/** Also never shown: the Basic credentials as they go over the wire to Connect. */
export const wireForms = [
  Buffer.from(`gw-connect-user:${secrets.connectPassword}`).toString("base64"),
  Buffer.from(`ui-user:${secrets.urlUserInfoPassword}`).toString("base64"),
];

export interface SecretStack {
  app: ManagedProcess;
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A second `next start` of the built app on its own port, database and log, against the running sandbox, with a
 * secret in every secret-bearing setting: a decoy cluster with SASL (unreachable), the sandbox's Connect under a URL
 * with user-info, a Connect that is down with basic auth, a webhook whose URL holds a token (nothing listens), the
 * admin secret; the proxy trusts 127.0.0.1, so a test can also act as a proxy-named user.
 */
export async function startSecretStack(): Promise<SecretStack> {
  const state = readSandboxState();
  const dir = path.join(gapwatchDir, "secrets-test");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const [port, closedA, closedB, closedC] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const connect = new URL(state.connect.url);
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`);
  const config = [
    "clusters:",
    ...clusters,
    "  - alias: decoy",
    `    bootstrap: 127.0.0.1:${closedA}`,
    "    sasl:",
    "      mechanism: PLAIN",
    "      username: gw-sasl-user",
    "      password: ${GW_TEST_SASL_PASSWORD}",
    "connect:",
    "  - name: sandbox",
    `    url: http://ui-user:\${GW_TEST_USERINFO_PASSWORD}@${connect.host}`,
    "  - name: down",
    `    url: http://127.0.0.1:${closedB}`,
    "    auth:",
    "      username: gw-connect-user",
    "      password: ${GW_TEST_CONNECT_PASSWORD}",
    "    timeoutMs: 1000",
    "pollIntervalSeconds: 2",
    "admin:",
    "  secret: ${GW_TEST_ADMIN_SECRET}",
    "notifications:",
    "  webhooks:",
    `    - url: http://127.0.0.1:${closedC}/hooks/\${GW_TEST_WEBHOOK_TOKEN}?token=\${GW_TEST_WEBHOOK_TOKEN}`,
    "server:",
    "  proxyAuth:",
    "    trustedProxies: [127.0.0.1]",
    "    userHeader: x-test-user",
    "    rolesHeader: x-test-roles",
    "",
  ].join("\n");
  const configFile = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(configFile, config);
  const app = spawnTracked({
    name: "secrets-dashboard",
    command: process.execPath,
    args: [path.join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    cwd: repoRoot,
    logFile: path.join(dir, "dashboard.log"),
    env: {
      ...process.env,
      GAPWATCH_CONFIG: configFile,
      GAPWATCH_DB: path.join(dir, "gapwatch.db"),
      GAPWATCH_LOG_LEVEL: "debug",
      GW_TEST_SASL_PASSWORD: secrets.saslPassword,
      GW_TEST_USERINFO_PASSWORD: secrets.urlUserInfoPassword,
      GW_TEST_CONNECT_PASSWORD: secrets.connectPassword,
      GW_TEST_ADMIN_SECRET: secrets.adminSecret,
      GW_TEST_WEBHOOK_TOKEN: secrets.webhookToken,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    // The instrumentation hook loads the config: a server that cannot start keeps answering 500.
    if (app.hasExited()) throw new Error(`the secrets-test dashboard exited. Last lines:\n${tailFile(app.logFile)}`);
    const ok = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the secrets-test dashboard did not answer in 60 s. Last lines:\n${tailFile(app.logFile)}`);
    await sleep(300);
  }
  return { app, url, port, stop: () => stopProcess(app, 10_000) };
}
