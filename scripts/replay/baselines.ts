import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { loadConfigFile } from "@/lib/config";
import { readCycleRecording } from "@/lib/pipeline/cycle-recording";
import { repoRoot } from "@/lib/sandbox/paths";
import { type ReplayedCycle, replayPipeline } from "./replay-pipeline";
import { synthesizeCycles } from "./synthetic-recording";

/** Where the recordings, their configs and the digests today's pipeline gave for them are committed. */
export const baselinesDir = path.join(repoRoot, "tests", "recordings");

const baselineSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  /** What was recorded, for the reader of the manifest. */
  about: z.string(),
  /** A recording (CycleRecorder's lines, gzipped) and the config it is judged with, both in baselinesDir. */
  recording: z.object({ file: z.string(), config: z.string() }).optional(),
  /** Or the bench's synthetic world, generated on the spot (it is deterministic). */
  synthetic: z.object({ partitions: z.number().int().positive(), cycles: z.number().int().positive() }).optional(),
  /** The pipeline is restarted before these cycles (a new pipeline and alert service on the same store). */
  restartBefore: z.array(z.number().int().positive()),
  /** Replayed by the unit tests; the others only by `npm run replay -- --check` (they take minutes). */
  inSuite: z.boolean(),
}).refine((b) => (b.recording === undefined) !== (b.synthetic === undefined), "give either recording or synthetic");
export type ReplayBaseline = z.infer<typeof baselineSchema>;

/** The baselines listed in tests/recordings/baselines.json. */
export function listBaselines(): ReplayBaseline[] {
  const file = path.join(baselinesDir, "baselines.json");
  const parsed = z.array(baselineSchema).safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a list of replay baselines: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function digestsFile(baseline: ReplayBaseline): string {
  return path.join(baselinesDir, `${baseline.name}.digests.txt`);
}

/** A cycle's committed digests: the pipeline's outputs, and what the API answers from them. */
export interface BaselineDigests {
  digest: string;
  answers: string;
}

/** The committed digests of each cycle (`cycle<TAB>digest<TAB>answers` lines; `#` lines say how they were made). */
export function readBaselineDigests(baseline: ReplayBaseline): Map<number, BaselineDigests> {
  const digests = new Map<number, BaselineDigests>();
  for (const line of readFileSync(digestsFile(baseline), "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [cycle, digest, answers] = line.split("\t");
    if (digest === undefined || answers === undefined) throw new Error(`${digestsFile(baseline)}: "${line}" is not cycle, digest, answers`);
    digests.set(Number(cycle), { digest, answers });
  }
  return digests;
}

/** Writes the digests a replay gave as the baseline's (a deliberate behaviour change, said in its commit). */
export function writeBaselineDigests(baseline: ReplayBaseline, replayed: readonly ReplayedCycle[], commit: string): void {
  const lines = replayed.map((c) => `${c.cycle}\t${c.digest}\t${c.answers}`);
  const head = `# ${baseline.name}: one digest per replayed cycle (scripts/replay/digest.ts), made at ${commit}`;
  writeFileSync(digestsFile(baseline), `${[head, ...lines].join("\n")}\n`);
}

/**
 * Replays one baseline through today's pipeline: a recording as read back from its file (plain objects), a synthetic
 * world as the collector hands its cycles over (flows built by buildFlow, read through their rows), so the baselines
 * cover both readers' paths.
 */
export async function replayBaseline(baseline: ReplayBaseline): Promise<ReplayedCycle[]> {
  const restartBefore = new Set(baseline.restartBefore);
  if (baseline.synthetic !== undefined) {
    const { config, cycles } = synthesizeCycles(baseline.synthetic.partitions, baseline.synthetic.cycles);
    return replayPipeline(cycles, { config, restartBefore });
  }
  const recording = baseline.recording!;
  const config = loadConfigFile(path.join(baselinesDir, recording.config));
  return replayPipeline(readCycleRecording(path.join(baselinesDir, recording.file)), { config, restartBefore });
}

/** The first cycle whose digest differs from the baseline's, said for a reader; null when every cycle matches. */
export function findDigestDifference(expected: ReadonlyMap<number, BaselineDigests>, replayed: readonly ReplayedCycle[]): string | null {
  if (replayed.length !== expected.size) return `${replayed.length} cycles replayed, the baseline has ${expected.size}`;
  for (const c of replayed) {
    const want = expected.get(c.cycle);
    if (want?.digest !== c.digest) {
      return `cycle ${c.cycle}: outputs' digest ${c.digest}, the baseline's ${want?.digest ?? "(none)"} — its firing alerts now: ` +
        `${c.firing.join(", ") || "none"}`;
    }
    if (want.answers !== c.answers) {
      return `cycle ${c.cycle}: the same outputs, but the API's answers differ (digest ${c.answers}, the baseline's ${want.answers})`;
    }
    if (want.answers !== c.publishedAnswers) {
      return `cycle ${c.cycle}: the API's answers from the published model differ from the baseline's (digest ` +
        `${c.publishedAnswers}, the baseline's ${want.answers}): what pages serve is not what the pipeline made`;
    }
  }
  return null;
}
