// What the cycle pipeline's live heap holds between cycles, at --partitions (default 100,000): the bench's synthetic
// world (scripts/bench/synthetic-world.ts) runs --cycles cycles of buildFlow, the detectors, the translation and the
// memory persister as pipeline-compute.ts runs them; then each structure is let go in turn and the heap after a full
// GC is read again: what it freed is what it held (shared parts count where they are let go last). Prints a table;
// asserts nothing. Not part of `npm run bench` or `npm test`.
//   node_modules/.bin/tsx scripts/bench/heap-attribution.ts [--partitions 100000] [--cycles 4]
import { buildFlow } from "@/lib/collector/flow-builder";
import type { Snapshot } from "@/lib/collector/types";
import {
  createDetectorMemory,
  createMemoryPersister,
  type DetectorMemory,
  defaultThresholds,
  runDetectors,
} from "@/lib/detect";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { keepOnlySnapshotIndex } from "@/lib/detect/snapshot-views";
import { type FlowTranslation, SyncModelCache, translateSnapshotFlow } from "@/lib/translation";
import { parseFlags } from "../args";
import { collectGarbage } from "./gc";
import { readSnapshotFixture } from "./snapshot-fixture";
import { createSyntheticWorld, cycleMs, type SyntheticWorld } from "./synthetic-world";

const flowId = "east->west";

/** Everything a cycle leaves alive for the next, each let go by setting it to null. */
interface Held {
  world: SyntheticWorld | null;
  cache: SyncModelCache | null;
  memory: DetectorMemory | null;
  persister: ReturnType<typeof createMemoryPersister> | null;
  watch: CheckpointWatchState | null;
  previous: Snapshot | null;
  current: Snapshot | null;
  translation: FlowTranslation | null;
}

/** The live heap and the typed arrays' buffers (outside the heap: heapUsed does not count them), MiB after a full GC. */
function readHeapMiB(): { heap: number; buffers: number } {
  collectGarbage();
  collectGarbage();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed / 2 ** 20, buffers: usage.arrayBuffers / 2 ** 20 };
}

/** Runs `cycles` cycles and returns what they left alive (in a function, so no stack frame keeps a cycle's values). */
function runCycles(world: SyntheticWorld, cycles: number): Held {
  const history = { offsetSyncs: world.syncs };
  const held: Held = {
    world,
    cache: new SyncModelCache(),
    memory: createDetectorMemory(),
    persister: createMemoryPersister(),
    watch: new CheckpointWatchState(),
    previous: null,
    current: null,
    translation: null,
  };
  for (let c = 1; c <= cycles; c++) {
    const now = world.base.takenAt + c * cycleMs;
    const { clusters, readings } = world.advance(c, now);
    const previous = held.current;
    const before = previous === null ? null : { flow: previous.flows[0]!, takenAt: previous.takenAt };
    const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, before);
    const cycle = { cycle: c, takenAt: now, durationMs: 0 };
    const current: Snapshot = { ...world.base, ...cycle, clusters, flows: [flow], transactionLedgers: {} };
    const out = runDetectors({ previous, current, history, memory: held.memory!, now, thresholds: defaultThresholds });
    const translation = translateSnapshotFlow(current, flow, history.offsetSyncs, now, { cache: held.cache! });
    held.cache!.endCycle();
    held.watch!.judge(translation, now);
    held.persister!.listChanges({ ...out.memory, checkpointWatch: held.watch! }, now);
    Object.assign(held, { memory: out.memory, previous, current, translation });
  }
  return held;
}

function main(): void {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? 100_000);
  const cycles = Number(flags.cycles ?? 4);
  const start = readHeapMiB();
  const fixture = readSnapshotFixture();
  // Made in the call, not kept in a variable here, so letting go of held.world frees it.
  const held = runCycles(createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions), cycles);
  const rows: [string, number, number][] = [];
  let last = readHeapMiB();
  const total = last.heap - start.heap;
  const totalBuffers = last.buffers - start.buffers;
  const letGo = (name: string, release: () => void) => {
    release();
    const now = readHeapMiB();
    rows.push([name, last.heap - now.heap, last.buffers - now.buffers]);
    last = now;
  };
  letGo("the memory persister (the stored form of every entry it wrote)", () => (held.persister = null));
  letGo("the last cycle's flow translation", () => (held.translation = null));
  letGo("the translation's sync model cache (per partition offset-sync models)", () => (held.cache = null));
  letGo("the checkpoint watch", () => (held.watch = null));
  letGo("the detector memory", () => (held.memory = null));
  letGo("the previous snapshot and the detectors' snapshot indexes", () => {
    keepOnlySnapshotIndex({} as Snapshot);
    held.previous = null;
  });
  letGo("the current flow (partition objects and columns)", () => (held.current = { ...held.current!, flows: [] }));
  letGo("the current clusters (partition states)", () => (held.current = null));
  // Its histories are a SyncHistoryStore, as the collector's; their points were shared fixture objects before (1.09M
  // syncs held as pointers into 240 objects), so this line never showed what arrays of points cost the collector.
  const worldName = "the synthetic world: its offset-sync histories (a SyncHistoryStore, as the collector's), definitions";
  letGo(worldName, () => (held.world = null));
  rows.push(["left: module-level caches (interned keys, slot indexes)", last.heap - start.heap, last.buffers - start.buffers]);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`live heap after ${cycles} cycles at ${partitions} partitions: ${total.toFixed(1)} MiB after a full GC, and ${totalBuffers.toFixed(1)} MiB of typed-array buffers outside it`);
  say("    heap  buffers");
  for (const [name, mib, buffers] of rows) say(`${mib.toFixed(1).padStart(8)} ${buffers.toFixed(1).padStart(8)} MiB  ${name}`);
}

main();
