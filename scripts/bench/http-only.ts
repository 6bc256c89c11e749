// Phase 4 of `npm run bench` alone (API and page speed), without phases 1–3's poll-cost and detection runs:
// `node --import tsx scripts/bench/http-only.ts [--partitions 10000] [--load-seconds 10]`. Starts the stack (sandbox,
// workload, `next start`, building the app if its sources changed), creates the benchmark topics, runs
// runHttpPhase, prints its result as JSON, and stops everything it started (by PID) and removes the topics.
import { findFreePort } from "@/lib/sandbox/free-port";
import { parseFlags } from "../args";
import { startStack } from "../stack";
import { createStoppedBenchConnector } from "./bench-connector";
import { connectBenchAdmins, createBenchTopics, partitionsPerBenchTopic } from "./bench-topics";
import { launchChromium } from "./browser";
import { connectDashboard } from "./dashboard-client";
import { runHttpPhase } from "./http-phase";
import { createReport } from "./report";
import { createResources, stopResources } from "./resources";

const flowId = "east->west";
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? 10_000);
  const loadSeconds = Number(flags["load-seconds"] ?? 10);
  if (!Number.isInteger(partitions) || partitions < partitionsPerBenchTopic) {
    throw new Error(`--partitions must be an integer ≥ ${partitionsPerBenchTopic}, got "${flags.partitions}"`);
  }
  const res = createResources();
  const report = createReport();
  const stopAll = () => stopResources(res, report);
  process.once("SIGINT", () => void stopAll().finally(() => process.exit(130)));
  try {
    const stack = (res.stack = await startStack({ port: await findFreePort(), workload: true, pollIntervalSeconds: 5, log: say }));
    const state = stack.sandbox.state;
    const dashboard = await connectDashboard(`http://127.0.0.1:${new URL(stack.url).port}`, stack.adminSecret);
    const browser = (res.browser = await launchChromium(say));
    res.admins = await connectBenchAdmins("east", state.clusters.east!.bootstrap, state.clusters.west!.bootstrap);
    res.benchConnector = await createStoppedBenchConnector(state, "east", "west");
    const topics = Math.ceil(partitions / partitionsPerBenchTopic);
    say(`Creating ${topics} benchmark topics (${topics * partitionsPerBenchTopic} partitions on each cluster)…`);
    await createBenchTopics(res.admins, 0, topics);
    const result = await runHttpPhase(dashboard, browser, stack.app.pid, flowId, topics * partitionsPerBenchTopic, loadSeconds, say);
    say(JSON.stringify(result, null, 2));
  } finally {
    await stopAll();
    if (report.errors.length > 0) say(`errors while stopping: ${report.errors.join("; ")}`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    say(`http-only failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
