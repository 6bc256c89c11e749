// The collector's refinement after buildFlow (lib/collector/collector.ts readFlows), the steps that need no Kafka:
// the source tail offsets chosen (fetchSourceTails), the target density and sync-step checks' choice of partitions,
// the rebuilt-flow and transaction-ledger loops, applySourceTails, advanceTransactionLedgers. Readers are fakes that
// answer at once (their own CPU is measured apart and taken out). Per cycle: CPU, bytes allocated, partitions arrays
// made. The world is synthetic-world.ts's (every partition trails by 5 records: every one gets a tail).
//   node --max-old-space-size=8000 --import tsx scripts/bench/collector-refine.ts --partitions 100000 --cycles 10
// Not part of `npm test` or `npm run bench`.
import v8 from "node:v8";
import { buildFlow } from "@/lib/collector/flow-builder";
import { countPartitionArraysMade } from "@/lib/collector/flow-rows";
import { checkSyncStepWriters } from "@/lib/collector/sync-step-writers";
import { checkTargetDensity } from "@/lib/collector/target-density";
import { advanceTransactionLedgers } from "@/lib/collector/transaction-ledger-read";
import type { PartitionLedger } from "@/lib/collector/transaction-ledger";
import { hasPartitionIn, readPartitionFields } from "@/lib/collector/partition-fields";
import { type Flow, ledgerKey } from "@/lib/collector/types";
import { applySourceTails, fetchSourceTails } from "@/lib/collector/unreplicated-tail";
import type { ClusterReader, FetchRequestItem, FetchResult } from "@/lib/kafka";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { cpuMsSince, round, summarize, toMiB } from "./stats";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

const flowId = "east->west";

/** CPU spent inside the fake readers (taken out of the steps' CPU). */
let readerCpuMs = 0;

/**
 * A reader answering every fetched partition at once: a source tail of two data records from the offset asked, read
 * to far beyond the log end for even partitions (the lag then counts records) and stopping after them for odd ones;
 * the target answers nothing (no density finding).
 */
function createFakeReader(alias: string, answers: boolean): ClusterReader {
  const unused = () => Promise.reject(new Error(`${alias}: only fetches are answered`));
  const fetchPartitions = (items: FetchRequestItem[]): Promise<Map<string, FetchResult>> => {
    const t = process.cpuUsage();
    const results = new Map<string, FetchResult>();
    if (answers) {
      for (const i of items) {
        const records = [0n, 1n].map((k) => ({ offset: i.offset + k, timestamp: 1_000 + Number(k), key: null, value: null, headers: [] }));
        const nextOffset = i.partition % 2 === 0 ? 1n << 40n : i.offset + 2n;
        results.set(`${i.topic}/${i.partition}`, { records, highWatermark: nextOffset, logStartOffset: 0n, nextOffset, controlBatches: 0 });
      }
    }
    readerCpuMs += cpuMsSince(t);
    return Promise.resolve(results);
  };
  return {
    alias,
    readMetadata: unused,
    readLogOffsets: unused,
    readTopicConfigs: unused,
    readBrokerUncleanElection: unused,
    listGroups: unused,
    readGroupOffsets: unused,
    readShareGroupOffsets: unused,
    readEpochEndOffsets: unused,
    readEligibleLeaders: unused,
    fetchRecords: unused,
    fetchPartitions,
    requestCounts: () => [],
    resetRequestCounts: () => undefined,
    close: () => Promise.resolve(),
  };
}

/** Bytes allocated on the V8 heap while `run` runs: the heap's growth plus what each collection in between freed. */
async function measure<T>(run: () => Promise<T>): Promise<{ value: T; cpuMs: number; allocatedMiB: number }> {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = process.memoryUsage().heapUsed;
  readerCpuMs = 0;
  const t = process.cpuUsage();
  const value = await run();
  const cpuMs = cpuMsSince(t) - readerCpuMs;
  const after = process.memoryUsage().heapUsed;
  const { statistics } = profiler.stop();
  let freed = 0;
  for (const s of statistics) freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  return { value, cpuMs, allocatedMiB: toMiB(after - before + freed) };
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const cycles = Number(flags.cycles ?? 10);
  const warmup = Number(flags.warmup ?? 3);
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, Number(flags.partitions ?? 100_000));
  const readers = new Map([
    [world.def.source, createFakeReader(world.def.source, true)],
    [world.def.target, createFakeReader(world.def.target, false)],
  ]);
  const untrusted = new Map<string, string>();
  const checkedTo = new Map<string, bigint>();
  const markerPartitions = new Set<string>();
  const ledgers = new Map<string, PartitionLedger>();
  const cpu: number[] = [];
  const allocated: number[] = [];
  const made: number[] = [];
  let previous: { flow: Flow; takenAt: number } | null = null;
  say(`${world.flowPartitions} flow partitions in ${world.topics} topics`);
  for (let c = 1; c <= warmup + cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const { clusters, readings } = world.advance(c, now);
    const built = [buildFlow(world.def, clusters[0], clusters[1], readings, now, previous)];
    const byAlias = new Map(clusters.map((cl) => [cl.alias, cl]));
    const arrays = countPartitionArraysMade();
    // As collector.ts readFlows runs them after the build.
    const { value: refined, cpuMs, allocatedMiB } = await measure(async () => {
      const tails = await fetchSourceTails(built, readers);
      const density = await checkTargetDensity(built, readers, tails.tails, untrusted);
      const steps = await checkSyncStepWriters(built, readers, world.syncs, checkedTo, untrusted);
      for (const key of steps.found) density.found.add(key);
      if (built.some((flow) => hasPartitionIn(flow, density.found))) throw new Error("the fake target found a density issue");
      const flows = built;
      if (ledgers.size > 0) {
        for (const f of flows) {
          const fields = readPartitionFields(f);
          for (let i = 0; i < fields.count; i++) if (ledgers.has(ledgerKey(f.source, fields.topic(i), fields.partition(i)))) markerPartitions.add(fields.key(i));
        }
      }
      const out = applySourceTails(flows, tails.tails, markerPartitions);
      await advanceTransactionLedgers(ledgers, out, byAlias, readers, now);
      return out;
    });
    const arraysMade = countPartitionArraysMade() - arrays;
    previous = { flow: refined[0]!, takenAt: now };
    const measured = c > warmup;
    if (measured) {
      cpu.push(cpuMs);
      allocated.push(allocatedMiB);
      made.push(arraysMade);
    }
    const lag = refined[0]!.totals.lag;
    say(`${measured ? "cycle" : "warm-up"} ${c}: ${fmt(cpuMs)} ms CPU, ${fmt(allocatedMiB)} MiB allocated, ${arraysMade} partitions arrays made; lag ${lag}`);
  }
  const [p, a] = [summarize(cpu), summarize(allocated)];
  say(`median of ${cycles}: ${fmt(p.median)} ms CPU (p95 ${fmt(p.p95)}), ${fmt(a.median)} MiB allocated, ${summarize(made).median} partitions arrays made a cycle`);
  say(`peak RSS ${fmt(process.resourceUsage().maxRSS / 1024)} MiB`);
}

function fmt(value: number): string {
  return String(round(value) ?? "—");
}

void main();
