// `npm run sandbox -- up|down|status|workload|<scenario> [--key value]`
import { rmSync } from "node:fs";
import { stateFile } from "@/lib/sandbox/paths";
import { startDedicatedSandbox } from "@/lib/sandbox/dedicated-sandbox";
import { listRecordedProcesses, stopStaleProcesses } from "@/lib/sandbox/processes";
import { startSandbox } from "@/lib/sandbox/sandbox";
import { scenarios } from "@/lib/sandbox/scenarios";
import { readAnySandboxState, readSandboxState } from "@/lib/sandbox/state";
import { startWorkload } from "@/lib/sandbox/workload";
import { parseFlags } from "./args";

const { positional, flags } = parseFlags(process.argv.slice(2));
const command = positional[0] ?? "help";
const out = (s: string) => process.stdout.write(`${s}\n`);

async function main(): Promise<void> {
  if (command === "up") {
    const mode = flags.mm2 ?? "connect";
    if (mode !== "connect" && mode !== "dedicated") throw new Error(`--mm2 takes connect or dedicated, got "${mode}"`);
    if (mode === "dedicated" && flags["source-brokers"] === "3") throw new Error("--mm2 dedicated runs single-broker clusters only");
    const secured = flags.secured === "true";
    if (secured && mode === "dedicated") throw new Error("--secured adds listeners to the Connect sandbox only; drop --mm2 dedicated");
    const state = mode === "dedicated"
      ? await startDedicatedSandbox()
      : (await startSandbox({ sourceBrokers: flags["source-brokers"] === "3" ? 3 : 1, secured })).state;
    out(JSON.stringify(state, null, 2));
    if (state.connect === null) out(`Gapwatch's config for it: \`npm run init -- --from ${state.mm2.configFile}\`.`);
    out("Sandbox running in the background. Traffic: `npm run sandbox -- workload`; stop: `npm run sandbox -- down`.");
    process.exit(0);
  }
  if (command === "down") {
    const stopped = await stopStaleProcesses();
    rmSync(stateFile, { force: true });
    out(stopped.length ? `stopped: ${stopped.join(", ")}` : "no sandbox processes were running");
    return;
  }
  if (command === "status") {
    const processes = listRecordedProcesses();
    if (processes.length === 0) out("no sandbox processes recorded");
    for (const p of processes) out(`${p.name.padEnd(14)} pid ${p.pid}  ${p.alive ? "running" : "not running"}`);
    try {
      out(JSON.stringify(readAnySandboxState(), null, 2));
    } catch (err) {
      out((err as Error).message);
    }
    return;
  }
  if (command === "workload") {
    const state = readAnySandboxState();
    const workload = await startWorkload({ bootstrap: state.clusters.east!.bootstrap, ratePerSecond: Number(flags.rate ?? 20) });
    out("Workload running; Ctrl-C stops it.");
    const stop = async () => {
      await workload.stop();
      process.exit(0);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    return;
  }
  const scenario = scenarios[command];
  if (scenario) {
    const report = await scenario.run(readSandboxState(), flags);
    out(JSON.stringify(report, null, 2));
    return;
  }
  out("usage: npm run sandbox -- <command> [--key value]\n");
  out("  up         start the clusters, Kafka Connect and MM2 in the background (--source-brokers 3: east with 3 brokers;");
  out("             --mm2 dedicated: MM2 as one MirrorMaker JVM with an mm2.properties, no Kafka Connect;");
  out("             --secured: SASL_SSL/SCRAM-SHA-512 and mTLS listeners, HTTPS Connect with client auth; docs/security.md)");
  out("  down       stop them (by the PIDs in .gapwatch/sandbox/pids)");
  out("  status     show what runs and .gapwatch/sandbox/state.json");
  out("  workload   produce and consume on the source cluster (--rate per topic per second, default 20)");
  for (const [name, s] of Object.entries(scenarios)) out(`  ${name.padEnd(10)} ${s.describe}`);
  if (command !== "help") process.exit(2);
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox ${command} failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
