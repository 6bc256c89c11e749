// What the flow translation costs per steady cycle at scale: CPU of FlowTranslator.translateCycle (as CyclePipeline's
// translate runs it) and the bytes it allocates, heap objects (the sampling heap profiler, counting objects the
// collector already freed) and array buffers (typed arrays' backing stores, outside the heap) apart. The world is
// pipeline-compute.ts's (synthetic-world.ts); buildFlow runs each cycle unmeasured.
//   node --max-old-space-size=8000 --import tsx scripts/bench/translation-alloc.ts --partitions 100000 --cycles 8
// Not part of `npm test`.
import { Session } from "node:inspector/promises";
import { buildFlow } from "@/lib/collector/flow-builder";
import type { Snapshot } from "@/lib/collector/types";
import { FlowTranslator } from "@/lib/pipeline/flow-translator";
import { parseFlags } from "../args";
import { collectGarbage } from "./gc";
import { readSnapshotFixture } from "./snapshot-fixture";
import { round, summarize, toMiB } from "./stats";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

const flowId = "east->west";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes allocated per function (self), largest first, from a sampling heap profile's tree. */
function listAllocators(root: ProfileNode): [string, number][] {
  const bytes = new Map<string, number>();
  const visit = (node: ProfileNode) => {
    const file = node.callFrame.url.split("/").slice(-2).join("/");
    const name = `${node.callFrame.functionName || "(anonymous)"} ${file}:${node.callFrame.lineNumber + 1}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    node.children.forEach(visit);
  };
  visit(root);
  return [...bytes].sort((a, b) => b[1] - a[1]);
}

/** Array buffer bytes after full collections, the sweeper given a turn to free the buffers it found dead. */
async function readSettledBuffers(): Promise<number> {
  for (let i = 0; i < 2; i++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().arrayBuffers;
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? 100_000);
  const cycles = Number(flags.cycles ?? 8);
  const warmup = Number(flags.warmup ?? 3);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions);
  const history = { offsetSyncs: world.syncs };
  const translator = new FlowTranslator();
  const session = new Session();
  session.connect();
  say(`${world.flowPartitions} flow partitions, ${world.groups} groups on ${world.groupPartitions} group partitions`);
  let previous: Snapshot | null = null;
  // The last two cycles' translations stay referenced, as the published read model and the one before hold them.
  let held: unknown[] = [];
  const cpu: number[] = [];
  const heapBytes: number[] = [];
  const bufferBytes: number[] = [];
  let allocators: [string, number][] = [];
  for (let c = 1; c <= warmup + cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const { clusters, readings } = world.advance(c, now);
    const before = previous?.flows[0];
    const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, before && previous ? { flow: before, takenAt: previous.takenAt } : null);
    const current: Snapshot = { ...world.base, cycle: c, takenAt: now, durationMs: 0, clusters, flows: [flow], transactionLedgers: {} };
    const buffersBefore = await readSettledBuffers();
    await session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    const t = process.cpuUsage();
    const translations = translator.translateCycle(current, history);
    const d = process.cpuUsage(t);
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: ProfileNode } };
    // This cycle's translation is held: what its buffers add once the collector settles is what it allocated and kept.
    const buffers = (await readSettledBuffers()) - buffersBefore;
    held = [translations, ...held].slice(0, 2);
    previous = current;
    const top = listAllocators(profile.head);
    const heap = top.reduce((sum, [, bytes]) => sum + bytes, 0);
    const ms = (d.user + d.system) / 1000;
    const measured = c > warmup;
    if (measured) {
      cpu.push(ms);
      heapBytes.push(heap);
      bufferBytes.push(buffers);
      allocators = top;
    }
    say(`${measured ? "cycle" : "warm-up"} ${c}: translate ${round(ms)} ms CPU, heap allocated ${round(toMiB(heap))} MiB, array buffers +${round(toMiB(buffers))} MiB`);
  }
  session.disconnect();
  const median = (values: number[]) => summarize(values).median;
  say(`median of ${cycles}: translate ${round(median(cpu))} ms CPU, heap allocated ${round(toMiB(median(heapBytes)))} MiB, array buffers +${round(toMiB(median(bufferBytes)))} MiB`);
  say(`held: ${held.length} translations; last measured cycle's allocators (self, sampled):`);
  for (const [name, bytes] of allocators.slice(0, Number(flags.top ?? 25))) say(`  ${round(toMiB(bytes))} MiB  ${name}`);
}

void main();
