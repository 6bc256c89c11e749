/**
 * Debian's Prometheus and Alertmanager (apt packages `prometheus`, `prometheus-alertmanager`) for
 * the tests: each on a free loopback port, with its config and data under the sandbox directory,
 * tracked by PID like the JVMs and stopped by PID. The packages' own systemd services play no part.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findFreePort } from "./free-port";
import { sandboxDir } from "./paths";
import { sleep, spawnTracked, stopProcess, tailFile, type ManagedProcess } from "./processes";

export const prometheusBinary = "/usr/bin/prometheus";
export const alertmanagerBinary = "/usr/bin/prometheus-alertmanager";
export const promtoolBinary = "/usr/bin/promtool";

/** A running Prometheus or Alertmanager. */
export interface MonitoringServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * Starts Alertmanager with one receiver that notifies nobody: the tests read alerts from its API
 * (`/api/v2/alerts`). Clustering (gossip on :9094 by default) is off.
 */
export async function startAlertmanager(): Promise<MonitoringServer> {
  const port = await findFreePort();
  const dir = path.join(sandboxDir, `alertmanager-${port}`);
  mkdirSync(path.join(dir, "data"), { recursive: true });
  const configFile = path.join(dir, "alertmanager.yml");
  writeFileSync(configFile, "route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n");
  return startServer("alertmanager", dir, port, alertmanagerBinary, [
    `--config.file=${configFile}`,
    `--storage.path=${path.join(dir, "data")}`,
    `--web.listen-address=127.0.0.1:${port}`,
    "--cluster.listen-address=",
  ]);
}

/** Options of startPrometheus. */
export interface PrometheusOptions {
  /** `host:port` targets of one scrape job named `gapwatch`. */
  targets: readonly string[];
  metricsPath: string;
  scrapeIntervalSeconds: number;
}

/** Starts Prometheus scraping one job; its TSDB lives under the sandbox directory. */
export async function startPrometheus(options: PrometheusOptions): Promise<MonitoringServer> {
  const port = await findFreePort();
  const dir = path.join(sandboxDir, `prometheus-${port}`);
  mkdirSync(path.join(dir, "data"), { recursive: true });
  const configFile = path.join(dir, "prometheus.yml");
  const interval = `${options.scrapeIntervalSeconds}s`;
  writeFileSync(
    configFile,
    [
      "global:",
      `  scrape_interval: ${interval}`,
      `  evaluation_interval: ${interval}`,
      "scrape_configs:",
      "  - job_name: gapwatch",
      `    metrics_path: ${options.metricsPath}`,
      "    static_configs:",
      `      - targets: [${options.targets.map((t) => JSON.stringify(t)).join(", ")}]`,
      "",
    ].join("\n"),
  );
  return startServer("prometheus", dir, port, prometheusBinary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${path.join(dir, "data")}`,
    `--web.listen-address=127.0.0.1:${port}`,
  ]);
}

/** Starts the binary and waits until `/-/ready` answers 200 (both serve it once they accept requests). */
async function startServer(name: string, dir: string, port: number, binary: string, args: string[]): Promise<MonitoringServer> {
  const logFile = path.join(dir, `${name}.log`);
  const proc = spawnTracked({ name: `${name}-${port}`, command: binary, args, logFile, cwd: dir });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopProcess(proc, 10_000);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.hasExited()) throw new Error(`${name} exited at start:\n${tailFile(logFile)}`);
    if (await isReady(url)) return { url, process: proc, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} not ready after 30 s:\n${tailFile(logFile)}`);
    }
    await sleep(200);
  }
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2000) });
    await response.text();
    return response.ok;
  } catch {
    return false;
  }
}
