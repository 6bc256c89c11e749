// The cluster rules and the metrics' series selection alone, per cycle, over the synthetic world (synthetic-world.ts):
// CPU of each rule that reads the clusters' partitions and groups (OFFSET_OUT_OF_RANGE, partition health,
// NO_CLEAN_SUCCESSOR, UNCLEAN_TRUNCATION, COMMIT_WITHOUT_LEADER_EPOCH, posture risks) and of the metrics' selectSeries,
// with a digest of what they answered (equal digests before and after a change: the same answers).
//   node --max-old-space-size=8000 --import tsx scripts/bench/cluster-rules.ts --partitions 100000 --cycles 8 --warmup 3
//   (--only metricsSelection,postureRisks: those parts alone)
// Not part of `npm test` or `npm run bench`.
import { createHash } from "node:crypto";
import { defaultMetricsOptions, selectSeries } from "@/lib/alerts/metric-series";
import { renderSelectionText } from "@/lib/alerts/metric-text";
import type { Snapshot } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/detect";
import { readClusterColumns, readTopicPositions } from "@/lib/detect/cluster-columns";
import { detectCommitsWithoutLeaderEpoch } from "@/lib/detect/commit-without-leader-epoch";
import { detectNoCleanSuccessor } from "@/lib/detect/no-clean-successor";
import { detectOffsetsOutOfRange } from "@/lib/detect/offset-out-of-range";
import { detectPartitionHealth } from "@/lib/detect/partition-health";
import { detectPostureRisks } from "@/lib/detect/posture-risks";
import type { DetectorContext } from "@/lib/detect/snapshot-views";
import { findTruncation, indexTruncations } from "@/lib/detect/truncation-index";
import { detectUncleanTruncation } from "@/lib/detect/unclean-truncation";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { cpuMsSince, round, summarize } from "./stats";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "./synthetic-world";

const flowId = "east->west";

type Context = Omit<DetectorContext, "truncations"> & { truncations: DetectorContext["truncations"] };
type Part = (ctx: Context) => unknown;

const parts: Record<string, Part> = {
  // The cluster rules' numbers, made once a cluster by whichever rule asks first (cluster-columns.ts).
  topicPositions: (ctx) => ctx.current.clusters.map((c) => readTopicPositions(c).byName.size),
  clusterColumns: (ctx) => ctx.current.clusters.map((c) => readClusterColumns(c).topicFlags.length),
  // Listed by the first rule that asks (findTruncation); timed here by asking once for a partition no cluster has.
  truncationIndex: (ctx) => {
    ctx.truncations = indexTruncations(ctx.current, []);
    findTruncation(ctx.truncations, "", "", -1);
    return ctx.truncations.listed?.size;
  },
  offsetOutOfRange: detectOffsetsOutOfRange,
  partitionHealth: detectPartitionHealth,
  noCleanSuccessor: detectNoCleanSuccessor,
  uncleanTruncation: (ctx) => detectUncleanTruncation(ctx, []).map((c) => c.render("k", null, 0)),
  commitsWithoutEpoch: detectCommitsWithoutLeaderEpoch,
  postureRisks: (ctx) => detectPostureRisks(ctx.current, ctx.now),
  metricsSelection: (ctx) => renderSelectionText(selectSeries(ctx.current, [], [], defaultMetricsOptions)),
};

/** Parts that make what the rules share (timed apart: whichever rule asks first pays for them in the pipeline). */
const shared = new Set(["topicPositions", "clusterColumns", "truncationIndex"]);

function main(): void {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? "100000");
  const cycles = Number(flags.cycles ?? "8");
  const warmup = Number(flags.warmup ?? "3");
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  // --only a,b: those parts alone (the others neither run nor allocate between them).
  const only = flags.only?.split(",");
  const chosen = Object.entries(parts).filter(([name]) => only === undefined || only.includes(name));
  const times = new Map<string, number[]>(chosen.map(([name]) => [name, []]));
  const digest = createHash("sha256");
  let previous: Snapshot | null = null;
  for (let c = 1; c <= warmup + cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const current = snapshotCycle(world, c, now, previous);
    const ctx = { previous, current, now, thresholds: defaultThresholds, truncations: new Map() } as unknown as Context;
    for (const [name, part] of chosen) {
      const start = process.cpuUsage();
      const answer = part(ctx);
      const ms = cpuMsSince(start);
      if (c > warmup) times.get(name)!.push(ms);
      // The shared numbers are not an answer: the digest compares with a version without them.
      if (!shared.has(name)) digest.update(`${c} ${name} ${JSON.stringify(answer, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))}\n`);
    }
    previous = current;
  }
  const lines = [`${world.flowPartitions} flow partitions, ${world.groups} groups on ${world.groupPartitions} group partitions;` +
    ` CPU ms per cycle, median (min–max) of ${cycles} after ${warmup} warm-up`];
  let sum = 0;
  for (const [name, ms] of times) {
    const d = summarize(ms);
    sum += d.median;
    lines.push(`${name.padEnd(20)} ${round(d.median)} (${round(d.min)}–${round(d.max)})`);
  }
  lines.push(`${"sum of medians".padEnd(20)} ${round(sum)}`, `answers digest ${digest.digest("hex").slice(0, 16)}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

main();
