// CPU of each snapshot rule (lib/detect/rules.ts), of the posture rule and of what the engine derives for them, at
// --partitions (default 100,000): the bench's synthetic world (scripts/bench/synthetic-world.ts) runs --cycles cycles
// of buildFlow and the rules as pipeline-compute.ts runs them; the last cycle's inputs are then kept and each part is
// run again alone --repeats times (rules are pure: each run gets the same inputs), its median and least CPU printed.
// Tells which rule a cycle's detectors time goes to, and which grows faster than the partitions (run it at two
// sizes). GC that a part triggers lands in its figure: the least run is the part alone. Prints a table; asserts
// nothing. Not part of `npm run bench` or `npm test`.
//   node --max-old-space-size=8000 --import tsx scripts/bench/rule-costs.ts [--partitions 100000] [--cycles 5] [--repeats 15]
import { buildFlow } from "@/lib/collector/flow-builder";
import type { Snapshot } from "@/lib/collector/types";
import { createDetectorMemory, defaultThresholds } from "@/lib/detect";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { runRules } from "@/lib/detect/engine";
import type { Rule, RuleCycle, RuleMemory } from "@/lib/detect/rule";
import { snapshotRules } from "@/lib/detect/rules";
import { detectPostureRisks } from "@/lib/detect/posture-risks";
import { createFreshKeyTest, listJudgedFlows } from "@/lib/detect/snapshot-views";
import { stepSyncs } from "@/lib/detect/sync-steps";
import { findTruncation, indexTruncations } from "@/lib/detect/truncation-index";
import { createUnknownFindingTest } from "@/lib/detect/unknown-data";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

/** One part's CPU over its repeats. */
interface PartCost {
  name: string;
  medianMs: number;
  leastMs: number;
}

/** A rule's inputs as the engine gave them in the last cycle. */
type Captured = [RuleCycle, unknown];

function main(): void {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? 100_000);
  const cycles = Number(flags.cycles ?? 5);
  const repeats = Number(flags.repeats ?? 15);
  if (!(partitions > 0) || !(cycles >= 2) || !(repeats >= 1)) {
    throw new Error("--partitions must be positive, --cycles at least 2 (the rules compare two), --repeats at least 1");
  }
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, "east->west", partitions);
  const history = { offsetSyncs: world.syncs };
  const captured = new Map<string, Captured>();
  // The registry's rules, each keeping the inputs it was last given.
  const capturing = snapshotRules.map((rule) => ({
    ...rule,
    run: (cycle: RuleCycle, section: unknown) => {
      captured.set(rule.id, [cycle, section]);
      return (rule.run as (cycle: RuleCycle, section: unknown) => ReturnType<Rule["run"]>)(cycle, section);
    },
  })) as Rule[];
  let memory: RuleMemory = { ...createDetectorMemory(), checkpointWatch: new CheckpointWatchState() };
  let previous: Snapshot | null = null;
  let current: Snapshot | null = null;
  let before: Snapshot | null = null;
  for (let c = 1; c <= cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const { clusters, readings } = world.advance(c, now);
    const last = previous?.flows[0];
    const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, last && previous ? { flow: last, takenAt: previous.takenAt } : null);
    current = { ...world.base, cycle: c, takenAt: now, durationMs: 0, clusters, flows: [flow], transactionLedgers: {} };
    const inputMemory = memory;
    memory = runRules({ previous, current, history, memory, now, thresholds: defaultThresholds }, capturing).memory;
    before = previous;
    previous = current;
    // The last cycle's memory going in is what each part is given again below.
    if (c === cycles) memory = inputMemory;
  }
  const snapshot = current!;
  const now = snapshot.takenAt;
  const fresh = createFreshKeyTest(snapshot);
  const freshBefore = createFreshKeyTest(before);
  const isJudged = (key: string) => fresh(key) && freshBefore(key);
  const newSyncs = stepSyncs(memory.syncMarkers, history, isJudged, fresh, now).newSyncs;
  const costs: PartCost[] = [
    measure("engine: stepSyncs (new offset syncs)", repeats, () => stepSyncs(memory.syncMarkers, history, isJudged, fresh, now)),
    measure("engine: listJudgedFlows", repeats, () => listJudgedFlows(snapshot, before, newSyncs)),
    measure("engine: truncations (listed on a question)", repeats, () => findTruncation(indexTruncations(snapshot, memory.events), "east", "", 0)),
    measure("engine: unknown-data test of last cycle's findings", repeats, () => {
      const isUnknown = createUnknownFindingTest(snapshot);
      for (const finding of memory.lastFindings) isUnknown(finding);
    }),
  ];
  for (const rule of snapshotRules) {
    const [cycle, section] = captured.get(rule.id)!;
    const run = rule.run as (cycle: RuleCycle, section: unknown) => unknown;
    costs.push(measure(rule.id, repeats, () => run(cycle, section)));
  }
  // Not a snapshot rule (rules.ts runs it beside them, without memory): its inputs are the snapshot alone.
  costs.push(measure("posture-risks", repeats, () => detectPostureRisks(snapshot, now)));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const sum = (pick: (c: PartCost) => number) => costs.reduce((total, c) => total + pick(c), 0);
  say(`${world.flowPartitions} flow partitions, the last of ${cycles} cycles, each part run ${repeats} times alone (CPU ms)`);
  say("  median    least  part");
  for (const c of costs) say(`${c.medianMs.toFixed(2).padStart(8)} ${c.leastMs.toFixed(2).padStart(8)}  ${c.name}`);
  say(`${sum((c) => c.medianMs).toFixed(1).padStart(8)} ${sum((c) => c.leastMs).toFixed(1).padStart(8)}  all`);
}

/** CPU (user + system) of `repeats` runs of `run`: the median and the least. */
function measure(name: string, repeats: number, run: () => unknown): PartCost {
  const runs: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    runs.push((used.user + used.system) / 1000);
  }
  runs.sort((a, b) => a - b);
  return { name, medianMs: runs[Math.floor(runs.length / 2)]!, leastMs: runs[0]! };
}

main();
