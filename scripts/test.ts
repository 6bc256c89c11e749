// `npm test`: typecheck, lint, unit, integration (real Kafka + MM2), build, e2e (Debian Chromium).
// Prints how long each stage took. `npm test -- --only unit,integration` runs a subset.
import { ensureKafkaJars } from "@/lib/sandbox/jars";
import { getKafkaVersion } from "@/lib/sandbox/kafka-version";
import { buildAppIfChanged, runCommand } from "./app-build";
import { parseFlags } from "./args";
import { ensureChromium } from "./chromium";
import { startStack, type Stack } from "./stack";

const bin = (name: string) => `node_modules/.bin/${name}`;
const say = (line: string) => process.stdout.write(`${line}\n`);
let stack: Stack | null = null;

const stages: { name: string; run: () => Promise<unknown> }[] = [
  { name: "typecheck", run: () => runCommand(bin("tsc"), ["--noEmit"]) },
  { name: "lint", run: () => runCommand(bin("eslint"), [".", "--max-warnings", "0"]) },
  { name: "unit", run: () => runCommand(bin("vitest"), ["run", "--project", "unit"]) },
  { name: "kafka-jars", run: () => ensureKafkaJars(getKafkaVersion()) },
  { name: "integration", run: () => runCommand(bin("vitest"), ["run", "--project", "integration"]) },
  { name: "build", run: () => buildAppIfChanged(say) },
  {
    name: "e2e",
    run: async () => {
      ensureChromium(say);
      const port = Number(process.env.GAPWATCH_E2E_PORT ?? 3100);
      stack = await startStack({ port, workload: true, pollIntervalSeconds: 3, log: say });
      try {
        await runCommand(bin("playwright"), ["test"], {
          GAPWATCH_E2E_URL: stack.url,
          GAPWATCH_ADMIN_SECRET: stack.adminSecret,
          PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
        });
      } finally {
        await stack.stop();
        stack = null;
      }
    },
  },
];

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const only = flags.only?.split(",");
  const unknown = only?.filter((n) => !stages.some((s) => s.name === n)) ?? [];
  if (unknown.length) throw new Error(`unknown stage(s) ${unknown.join(", ")}; stages: ${stages.map((s) => s.name).join(", ")}`);
  const timings: { name: string; seconds: number; ok: boolean }[] = [];
  const started = Date.now();
  let failed: string | null = null;
  for (const stage of stages.filter((s) => !only || only.includes(s.name))) {
    say(`\n=== ${stage.name} ===`);
    const t0 = Date.now();
    try {
      await stage.run();
      timings.push({ name: stage.name, seconds: (Date.now() - t0) / 1000, ok: true });
    } catch (err) {
      timings.push({ name: stage.name, seconds: (Date.now() - t0) / 1000, ok: false });
      failed = `${stage.name}: ${err instanceof Error ? err.message : String(err)}`;
      break;
    }
  }
  say("\n=== stage times ===");
  for (const t of timings) say(`${t.name.padEnd(12)} ${t.seconds.toFixed(1).padStart(7)} s  ${t.ok ? "ok" : "FAILED"}`);
  say(`${"total".padEnd(12)} ${((Date.now() - started) / 1000).toFixed(1).padStart(7)} s`);
  if (failed) {
    process.stderr.write(`\nnpm test failed in ${failed}\n`);
    process.exit(1);
  }
}

const interrupt = async () => {
  await (stack as Stack | null)?.stop();
  process.exit(130);
};
process.on("SIGINT", () => void interrupt());
process.on("SIGTERM", () => void interrupt());
main().catch((err: unknown) => {
  process.stderr.write(`npm test: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
