import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { GET as getMetrics } from "@/app/api/metrics/route";
import { promtoolBinary, startPrometheus, type MonitoringServer } from "@/lib/sandbox/monitoring";
import { repoRoot } from "@/lib/sandbox/paths";
import { sleep } from "@/lib/sandbox/processes";
import { runLag, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil } from "../support/runtime";

/**
 * A real Prometheus (Debian's `prometheus`) scrapes Gapwatch's /api/metrics — served by the route
 * handler itself on a plain node HTTP server — and PromQL returns the lag Gapwatch shows. The shipped
 * rules load (`promtool check rules`), pass their unit tests (`promtool test rules`), and every rule
 * and dashboard expression evaluates on that Prometheus.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const topic = `promtest-${randomUUID().slice(0, 8)}`;
const runtime = createSandboxRuntime(state, 2, {}, `metrics:\n  partitionSeriesTopics: ["${topic}"]\n`);
const rulesFile = path.join(repoRoot, "deploy/prometheus/gapwatch-rules.yml");
const dashboardFile = path.join(repoRoot, "deploy/grafana/gapwatch-dashboard.json");
let server: Server;
let prometheus: MonitoringServer;

async function produce(counts: readonly number[]): Promise<void> {
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  const messages = counts.flatMap((count, partition) => Array.from({ length: count }, (_, seq) => ({ partition, value: `${partition}-${seq}` })));
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
}

interface QueryResult {
  status: string;
  error?: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

async function query(promql: string): Promise<QueryResult> {
  const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  return (await response.json()) as QueryResult;
}

/** Polls a PromQL query until its samples, as `label → value`, equal `expected`. */
async function waitForSamples(promql: string, label: string, expected: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  let seen: Record<string, string> = {};
  while (Date.now() < deadline) {
    const result = await query(promql);
    seen = Object.fromEntries(result.data.result.map((r) => [r.metric[label] ?? "", r.value[1]]));
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await sleep(500);
  }
  expect(seen, promql).toEqual(expected);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const response = await getMetrics();
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(await response.text());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  prometheus = await startPrometheus({ targets: [`127.0.0.1:${port}`], metricsPath: "/api/metrics", scrapeIntervalSeconds: 1 });
  await ensureTopics(east, [{ topic, partitions: 2 }]);
  await produce([20, 20]);
  await cycleUntil(runtime.collector, (s) => s.flows[0]?.partitions.filter((p) => p.topic === topic && p.lag === 0n && p.targetLogEnd === 20n).length === 2, `${topic} replicated`);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
  await prometheus?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe("a real Prometheus scrapes /api/metrics", () => {
  it("PromQL returns the per-partition and per-topic lag Gapwatch shows", async () => {
    await runLag(state, { seconds: 0 }); // MM2 paused: the lag stays exactly what was produced
    let shown: Record<string, string>;
    try {
      await produce([30, 7]);
      const snapshot = await cycleUntil(runtime.collector, (s) => {
        const lags = s.flows[0]!.partitions.filter((p) => p.topic === topic).map((p) => p.lag);
        return lags.length === 2 && lags.includes(30n) && lags.includes(7n);
      }, `${topic} lag 30 and 7`);
      shown = Object.fromEntries(snapshot.flows[0]!.partitions.filter((p) => p.topic === topic).map((p) => [String(p.partition), String(p.lag)]));
    } finally {
      await runResume(state);
    }
    expect(shown).toEqual({ "0": "30", "1": "7" });
    await waitForSamples(`gapwatch_flow_partition_lag_records{topic="${topic}"}`, "partition", shown);
    await waitForSamples(`gapwatch_flow_topic_lag_records{topic="${topic}"}`, "topic", { [topic]: "37" });
    const up = await query('up{job="gapwatch"}');
    expect(up.data.result.map((r) => r.value[1])).toEqual(["1"]);
  });

  it("every rule and dashboard expression evaluates on Prometheus", async () => {
    const rules = (parse(readFileSync(rulesFile, "utf8")) as { groups: { rules: { expr: string }[] }[] }).groups.flatMap((g) => g.rules.map((r) => r.expr));
    const dashboard = JSON.parse(readFileSync(dashboardFile, "utf8")) as { panels: { targets: { expr: string }[] }[] };
    const panels = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr.replaceAll("$flow", ".*")));
    expect(rules).toHaveLength(11);
    expect(panels).toHaveLength(14);
    const failures: string[] = [];
    for (const expr of [...rules, ...panels]) {
      const result = await query(expr);
      if (result.status !== "success") failures.push(`${expr}: ${result.error}`);
    }
    expect(failures).toEqual([]);
  });

  it("promtool loads the shipped rules and their unit tests pass", () => {
    const check = spawnSync(promtoolBinary, ["check", "rules", rulesFile], { encoding: "utf8" });
    expect(check.stdout + check.stderr).toContain("SUCCESS: 11 rules found");
    expect(check.status).toBe(0);
    const unit = spawnSync(promtoolBinary, ["test", "rules", "gapwatch-rules.test.yml"], { encoding: "utf8", cwd: path.dirname(rulesFile) });
    expect(unit.stdout + unit.stderr).toContain("SUCCESS");
    expect(unit.status).toBe(0);
  });
});
