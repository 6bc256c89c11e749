// `npm run compat -- --kafka 3.6.2,3.9.1,4.3.1 [--files a,b]`: Kafka version compatibility run (not part of npm test).
// Runs a named subset of the integration suite (compatFiles: every detector family) once per Kafka version, one
// version at a time, each with GAPWATCH_KAFKA_VERSION set and in a GAPWATCH_HOME of its own (jars, sandbox, ports and
// pidfiles never meet). Prints version → file → pass/fail and seconds, and writes bench/results/compat-<date>.json.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultKafkaVersion } from "@/lib/sandbox/kafka-version";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { parseFlags } from "./args";
import {
  type CompatVersionResult,
  type VitestJsonReport,
  formatCompatTable,
  isFilePassed,
  parseVersionList,
  summarizeVitestReport,
} from "./compat/summary";

/**
 * The subset, with the detectors each file drives for real (docs/kafka-versions.md lists them too):
 * data loss, topic reset, task failed/stalled, lag and retention risk; offset translation and checkpoints;
 * unclean-election truncation on a 3-broker cluster; operator actions (position moved, target group rewound,
 * redelivery); the sandbox's fault scenarios end to end.
 */
const compatFiles = [
  "tests/integration/faults/detection.test.ts",
  "tests/integration/translation/translation.test.ts",
  "tests/integration/real-clusters/unclean-election.test.ts",
  "tests/integration/production/operator-actions.test.ts",
  "tests/integration/sandbox/scenarios.test.ts",
];

const say = (line: string) => process.stdout.write(`${line}\n`);
let running: ReturnType<typeof spawn> | null = null;

/** The home of one version's run, below the default home (the default home's sandbox is left alone). */
function homeFor(version: string): string {
  return path.join(gapwatchDir, `compat-${version}`);
}

/** Runs the subset on one Kafka version with vitest's default and JSON reporters. */
async function runVersion(version: string, files: string[]): Promise<CompatVersionResult> {
  const home = homeFor(version);
  mkdirSync(home, { recursive: true });
  const reportFile = path.join(home, "vitest-report.json");
  rmSync(reportFile, { force: true });
  const started = Date.now();
  const args = ["run", "--project", "integration", "--reporter=default", "--reporter=json", `--outputFile.json=${reportFile}`, ...files];
  say(`\n=== Kafka ${version} (GAPWATCH_HOME=${home}) ===`);
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(path.join(repoRoot, "node_modules", ".bin", "vitest"), args, {
      cwd: repoRoot,
      stdio: "inherit",
      env: { ...process.env, GAPWATCH_HOME: home, GAPWATCH_KAFKA_VERSION: version },
    });
    running = child;
    child.on("error", (err) => reject(new Error(`cannot run vitest: ${err.message}`)));
    child.on("close", (code) => {
      running = null;
      resolve(code ?? 1);
    });
  });
  const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, "utf8")) as VitestJsonReport) : { testResults: [] };
  return { version, seconds: (Date.now() - started) / 1000, exitCode, files: summarizeVitestReport(report, repoRoot) };
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const versions = parseVersionList(flags.kafka, defaultKafkaVersion);
  const files = flags.files ? flags.files.split(",").map((f) => f.trim()) : compatFiles;
  const missing = files.filter((f) => !existsSync(path.join(repoRoot, f)));
  if (missing.length > 0) throw new Error(`--files: no such file ${missing.join(", ")} (paths from the repository root)`);
  const startedAt = new Date();
  const results: CompatVersionResult[] = [];
  for (const version of versions) results.push(await runVersion(version, files));
  say(`\n=== compatibility (${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)} at the end) ===`);
  say(formatCompatTable(results, files));
  const stamp = startedAt.toISOString().replace(/:/g, "-").replace(/\.\d+Z$/, "Z");
  const out = path.join(repoRoot, "bench", "results", `compat-${stamp}.json`);
  const machine = { cpuCount: os.cpus().length, totalMemoryMiB: Math.round(os.totalmem() / 2 ** 20), loadAtEnd: os.loadavg() };
  writeFileSync(out, `${JSON.stringify({ startedAt: startedAt.toISOString(), machine, files, results }, null, 2)}\n`);
  say(`written ${path.relative(repoRoot, out)}`);
  const allPassed = results.every((r) => r.exitCode === 0 && files.every((f) => isFilePassed(r.files.find((x) => x.file === f))));
  if (!allPassed) process.exit(1);
}

// vitest's teardown stops the sandbox's JVMs by PID when it is interrupted.
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => running?.kill("SIGINT"));
main().catch((err: unknown) => {
  process.stderr.write(`npm run compat: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
