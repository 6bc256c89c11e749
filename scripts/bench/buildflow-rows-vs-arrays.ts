// buildFlow over one cycle's cluster states held as the poll's rows, and over the same states as arrays of objects (as a
// recorded snapshot holds them), built in turn in one process: what reading the rows costs buildFlow itself, apart
// from where the garbage collector's work lands in a whole cycle (docs/columnar-model.md, the clusters' states).
//   node --max-old-space-size=8000 --import tsx scripts/bench/buildflow-rows-vs-arrays.ts --partitions 100000 --rounds 24
import { findTopicRows } from "@/lib/collector/cluster-partition-rows";
import { buildFlow } from "@/lib/collector/flow-builder";
import type { ClusterSnapshot, TopicState } from "@/lib/collector/types";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

const { flags } = parseFlags(process.argv.slice(2));
const partitions = Number(flags.partitions ?? 100_000);
const rounds = Number(flags.rounds ?? 24);
/** Builds left out of the figures (the first ones compile and fill the slot index). */
const warmup = 2;

const fixture = readSnapshotFixture();
const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, "east->west", partitions);
for (let c = 1; c <= 3; c++) world.advance(c, world.base.takenAt + c * cycleMs);
const now = world.base.takenAt + 4 * cycleMs;
const { clusters, readings } = world.advance(4, now);
const arrays = clusters.map(holdAsArrays);
const fromRows: number[] = [];
const fromArrays: number[] = [];
// Alternated, each round in the other order: neither side always follows the other's garbage.
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    fromRows.push(measureBuild(clusters));
    fromArrays.push(measureBuild(arrays));
  } else {
    fromArrays.push(measureBuild(arrays));
    fromRows.push(measureBuild(clusters));
  }
}
process.stdout.write(`${partitions} partitions, ${rounds} builds each (the first ${warmup} left out), CPU ms\n`);
process.stdout.write(`rows    ${describe(fromRows)}\narrays  ${describe(fromArrays)}\n`);

/** A copy of the cluster whose topics with rows hold their states as a plain array (made from the rows). */
function holdAsArrays(cluster: ClusterSnapshot): ClusterSnapshot {
  const topics = cluster.topics.map((topic): TopicState => {
    const found = findTopicRows(topic);
    if (found === undefined) return topic;
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(topic)) as TopicState;
    const states = found.rows.makeTopicPartitions(found.topic);
    Object.defineProperty(copy, "partitions", { value: states, writable: true, enumerable: true, configurable: true });
    return copy;
  });
  return { ...cluster, topics };
}

/** CPU of one build of the flow over `over` (user + system, GC threads included). */
function measureBuild(over: readonly ClusterSnapshot[]): number {
  const start = process.cpuUsage();
  buildFlow(world.def, over[0], over[1], readings, now, null);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function describe(ms: readonly number[]): string {
  const sorted = ms.slice(warmup).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.floor((sorted.length - 1) * q)]!.toFixed(0);
  return `least ${at(0)}  p25 ${at(0.25)}  median ${at(0.5)}`;
}
