// `npm run demo`: the dashboard on a real two-cluster Kafka + MM2 sandbox with traffic. Ctrl-C stops everything.
// `npm run demo -- --scale-out`: three clusters, two MM2 flows, PostgreSQL, three collectors, two web instances.
import { parseFlags } from "./args";
import { runScaleOutDemo } from "./scale-out/scale-out-demo";
import { startStack } from "./stack";

const started = Date.now();
const port = Number(process.env.PORT ?? 3000);
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  say("Starting the Gapwatch demo: two Kafka clusters (east, west), Kafka Connect with MirrorMaker 2, a workload, the dashboard…");
  const stack = await startStack({ port, workload: true, log: say });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`\n${signal}: stopping the dashboard, the workload, Kafka Connect and the brokers…`);
    await stack.stop();
    say("Stopped.");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  say(`Gapwatch is ready at ${stack.url} (started in ${((Date.now() - started) / 1000).toFixed(0)} s; admin secret in .gapwatch/demo/admin-secret; Ctrl-C stops)`);
}

const scaleOut = parseFlags(process.argv.slice(2)).flags["scale-out"] === "true";
(scaleOut ? runScaleOutDemo(port, say) : main()).catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
