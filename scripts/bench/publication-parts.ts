// What each part of the published read model costs to encode: the cycle pipeline runs over the synthetic world (as
// pipeline-cycle.ts), then each part of the model as served (serveReadModel: trimmed, rows handed over) is encoded alone
// (lib/pipeline/columnar-codec.ts), as encodeReadModel hands it over. Per part: CPU median (GC included) and bytes;
// and the whole publication's encode. Tells where a publication's time goes; the parts' sum is near the whole's.
//   node --max-old-space-size=8000 --import tsx scripts/bench/publication-parts.ts --partitions 100000 --cycles 6
// `--digests` also prints each part's sha256 per cycle (two versions that should write the same bytes compare them).
// Not part of `npm test` or `npm run bench`.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAlertService } from "@/lib/alerts/alert-service";
import type { Flow, Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { encodeReadModel, serveReadModel } from "@/lib/pipeline/published-read-models";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { createSqliteStore } from "@/lib/store";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { cpuMsSince, round, summarize, toMiB } from "./stats";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "./synthetic-world";

const flowId = "east->west";

/** The parts of a model as encodeReadModel hands them to the encoder (serveReadModel). */
function listParts(model: ReadModel): Record<string, unknown> {
  const m = serveReadModel(model);
  return {
    "snapshot.flows": m.snapshot.flows,
    // The flows' two long arrays alone: their partitions (written from their rows) and their checkpoints.
    "snapshot.flows: partitions": m.snapshot.flows.map((flow) => (flow as Flow).partitions),
    "snapshot.flows: checkpoints": m.snapshot.flows.map((flow) => (flow as Flow).checkpoints),
    "snapshot.clusters": m.snapshot.clusters,
    "snapshot.connect": m.snapshot.connect,
    translations: m.translations,
    "history.offsetSyncs": m.history,
    progress: m.progress,
    alerts: m.alerts,
    risks: m.risks,
    audit: m.audit,
  };
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const cycles = Number(flags.cycles ?? 6);
  const warmup = Number(flags.warmup ?? 2);
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, flowId, Number(flags.partitions ?? 100_000));
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-publication-parts-"));
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  try {
    const config = configSchema.parse({
      clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
      pollIntervalSeconds: cycleMs / 1000,
      store: { kind: "sqlite" },
    });
    const pipeline = new CyclePipeline(config, store, createAlertService(store, config));
    const cpu = new Map<string, number[]>();
    const bytes = new Map<string, number>();
    const note = (part: string, ms: number, size?: number) => {
      cpu.set(part, [...(cpu.get(part) ?? []), ms]);
      if (size !== undefined) bytes.set(part, size);
    };
    let previous: Snapshot | null = null;
    say(`${world.flowPartitions} flow partitions, ${world.groupPartitions} group partitions; ${warmup} warm-up, ${cycles} cycles`);
    for (let c = 1; c <= warmup + cycles; c++) {
      const current = snapshotCycle(world, c, world.base.takenAt + c * cycleMs, previous);
      const model = await pipeline.processCycle(current, previous, { offsetSyncs: world.syncs });
      previous = current;
      if (c <= warmup) continue;
      let t = process.cpuUsage();
      const whole = encodeReadModel(model);
      note("whole publication (encodeReadModel)", cpuMsSince(t), whole.length);
      t = process.cpuUsage();
      const parts = listParts(model);
      note("serveReadModel (trim, rows handed over)", cpuMsSince(t));
      for (const [part, value] of Object.entries(parts)) {
        t = process.cpuUsage();
        const body = encodeColumnar(value);
        note(part, cpuMsSince(t), body.length);
        // Outside the timing: a digest per part and cycle, for comparing two versions' bytes (`builtAt` is in none).
        if (flags.digests !== undefined) say(`cycle ${c} ${part} sha256 ${createHash("sha256").update(body).digest("hex")}`);
      }
    }
    for (const [part, samples] of cpu) {
      const d = summarize(samples);
      const size = bytes.get(part);
      const mib = size === undefined ? "" : `  ${round(toMiB(size))} MiB`;
      say(`${part.padEnd(40)} median ${String(round(d.median)).padStart(7)} ms CPU (min ${round(d.min)}, max ${round(d.max)})${mib}`);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
