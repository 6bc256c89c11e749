// `npm run replay -- --recording <file> --config <gapwatch.config.yaml> [--restart-before 12,20]`
// `npm run replay -- --synthetic 10000 --cycles 12 [--restart-before 7]`
// `npm run replay -- --check [--only soak,synthetic-100k]`: every baseline in tests/recordings gives its digests
// `npm run replay -- --rebaseline <name>`: writes a baseline's digests anew (a deliberate behaviour change)
// Replays recorded cycles (GAPWATCH_RECORD_CYCLES, docs/development.md) or the bench's synthetic world through the
// pipeline on a throwaway store and prints each cycle's digest and firing alerts. Not part of npm test (its unit test
// replays a small synthetic world).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type GapwatchConfig, loadConfigFile } from "@/lib/config";
import { readCycleRecording } from "@/lib/pipeline/cycle-recording";
import { parseFlags } from "./args";
import { findDigestDifference, listBaselines, readBaselineDigests, replayBaseline, writeBaselineDigests } from "./replay/baselines";
import { replayPipeline } from "./replay/replay-pipeline";
import { recordSyntheticCycles } from "./replay/synthetic-recording";

const usage = "usage: npm run replay -- (--recording <file> --config <file> | --synthetic <partitions> [--cycles 12]) " +
  "[--restart-before <cycle,…>] | --check [--only <name,…>] | --rebaseline <name>";
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  if (flags.check !== undefined) return checkBaselines(flags.only);
  if (flags.rebaseline !== undefined) return rebaseline(flags.rebaseline);
  const restartBefore = new Set((flags["restart-before"] ?? "").split(",").filter((s) => s !== "").map(Number));
  if ([...restartBefore].some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--restart-before takes cycle numbers; ${usage}`);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "gapwatch-replay-cli-"));
  try {
    const { file, config } = prepareRecording(flags, scratch);
    const started = performance.now();
    const replayed = await replayPipeline(readCycleRecording(file), { config, restartBefore });
    for (const c of replayed) {
      process.stdout.write(`cycle ${c.cycle}\t${c.digest}\t(${c.digestWithoutProgress} without the catch-up window)\t` +
        `answers ${c.answers}\t` +
        `${c.alerts} alerts\t${c.firing.length} firing` +
        `${restartBefore.has(c.cycle) ? "\t(restarted before it)" : ""}\n`);
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`${replayed.length} cycles replayed in ${seconds.toFixed(1)} s\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Replays every baseline (or those named) and compares each cycle's digest; exits 1 when any differs. */
async function checkBaselines(only: string | undefined): Promise<void> {
  const names = only === undefined ? null : new Set(only.split(","));
  const baselines = listBaselines().filter((b) => names === null || names.has(b.name));
  if (baselines.length === 0) throw new Error(`no baseline named ${only}; see tests/recordings/baselines.json`);
  let failed = 0;
  for (const baseline of baselines) {
    const started = performance.now();
    const replayed = await replayBaseline(baseline);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const difference = findDigestDifference(readBaselineDigests(baseline), replayed);
    if (difference !== null) failed++;
    say(`${baseline.name}\t${replayed.length} cycles in ${seconds} s\t${difference ?? "identical to the baseline"}`);
  }
  if (failed > 0) {
    say(`${failed} of ${baselines.length} baselines differ`);
    process.exitCode = 1;
  }
}

async function rebaseline(name: string): Promise<void> {
  const baseline = listBaselines().find((b) => b.name === name);
  if (baseline === undefined) throw new Error(`no baseline named ${name}; see tests/recordings/baselines.json`);
  const replayed = await replayBaseline(baseline);
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  writeBaselineDigests(baseline, replayed, commit);
  say(`${name}: ${replayed.length} digests written`);
}

function prepareRecording(flags: Record<string, string>, scratch: string): { file: string; config: GapwatchConfig } {
  if (flags.synthetic !== undefined) {
    const partitions = Number(flags.synthetic);
    const cycles = Number(flags.cycles ?? "12");
    if (!Number.isInteger(partitions) || partitions < 1 || !Number.isInteger(cycles) || cycles < 1) {
      throw new Error(`--synthetic and --cycles take positive whole numbers; ${usage}`);
    }
    const file = path.join(scratch, "synthetic.jsonl");
    return { file, config: recordSyntheticCycles(file, partitions, cycles) };
  }
  if (flags.recording === undefined || flags.config === undefined) throw new Error(usage);
  return { file: flags.recording, config: loadConfigFile(flags.config) };
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
