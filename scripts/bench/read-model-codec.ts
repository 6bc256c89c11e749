// Size of a published read model (GAPWATCH_ROLE=collector writes one per cycle; web instances read it) and the CPU
// of trimming and encoding it and of decoding it (lib/pipeline/published-read-models.ts), at the sandbox's size and
// at 10,000 partitions: the real CyclePipeline over the synthetic world (synthetic-world.ts) on a throwaway SQLite
// file, 3 cycles, then the last cycle's model encoded and decoded 5 times (median), with the longest the event loop
// waited while a decode ran (monitorEventLoopDelay's max). Prints; asserts nothing.
//   node_modules/.bin/tsx scripts/bench/read-model-codec.ts [--partitions 10000]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { createAlertService } from "@/lib/alerts/alert-service";
import { buildFlow } from "@/lib/collector/flow-builder";
import type { Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { decodeReadModel, encodeReadModel } from "@/lib/pipeline/published-read-models";
import { createSqliteStore } from "@/lib/store";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { summarize } from "./stats";
import { createSyntheticWorld, cycleMs } from "./synthetic-world";

const flowId = "east->west";

async function buildModel(partitions: number | null): Promise<{ model: ReadModel; partitions: number }> {
  const fixture = readSnapshotFixture();
  const own = fixture.snapshot.flows.find((f) => f.id === flowId)!.partitions.length;
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, partitions ?? own);
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-codec-bench-"));
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  try {
    const config = configSchema.parse({ clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })), pollIntervalSeconds: cycleMs / 1000 });
    const pipeline = new CyclePipeline(config, store, createAlertService(store, config));
    let previous: Snapshot | null = null;
    let model: ReadModel | null = null;
    for (let c = 1; c <= 3; c++) {
      const now = world.base.takenAt + c * cycleMs;
      const { clusters, readings } = world.advance(c, now);
      const before = previous?.flows[0];
      const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, before && previous ? { flow: before, takenAt: previous.takenAt } : null);
      const current: Snapshot = { ...world.base, cycle: c, takenAt: now, durationMs: 0, clusters, flows: [flow], transactionLedgers: {} };
      model = await pipeline.processCycle(current, previous, { offsetSyncs: world.syncs });
      previous = current;
    }
    return { model: model!, partitions: world.flowPartitions };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Measured = { bytes: number; lines: number; encodeMs: number; decodeMs: number; blockMs: number };

/** Median encode and decode times, and the longest the event loop waited during a decode (it yields between lines). */
async function measure(model: ReadModel): Promise<Measured> {
  const encodeMs: number[] = [];
  const decodeMs: number[] = [];
  const blockMs: number[] = [];
  let text = "";
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    text = encodeReadModel(model);
    encodeMs.push(performance.now() - t);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    t = performance.now();
    await decodeReadModel(text);
    decodeMs.push(performance.now() - t);
    delay.disable();
    blockMs.push(delay.max / 1e6);
  }
  const lines = text.split("\n").length;
  const median = (values: number[]) => summarize(values).median;
  return { bytes: Buffer.byteLength(text), lines, encodeMs: median(encodeMs), decodeMs: median(decodeMs), blockMs: median(blockMs) };
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const sizes = flags.partitions === undefined ? [null, 10_000] : [Number(flags.partitions)];
  for (const size of sizes) {
    const { model, partitions } = await buildModel(size);
    const m = await measure(model);
    const syncs = [...model.history.offsetSyncs.values()].reduce((n, s) => n + s.length, 0);
    process.stdout.write(
      `${partitions} flow partitions (${model.translations.get(flowId)?.groups.length ?? 0} groups, ${syncs} offset syncs, ${model.alerts.length} alerts): ` +
        `body ${(m.bytes / 1024 / 1024).toFixed(2)} MiB in ${m.lines} lines, encode ${m.encodeMs.toFixed(1)} ms, decode ${m.decodeMs.toFixed(1)} ms, ` +
        `longest event-loop wait during a decode ${m.blockMs.toFixed(1)} ms (medians of 5)\n`,
    );
  }
}

void main();
