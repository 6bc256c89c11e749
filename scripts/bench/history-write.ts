// What the store's writes cost per cycle at scale: the real CyclePipeline over the synthetic world of
// pipeline-cycle.ts on a fresh SQLite file (or a throwaway PostgreSQL with --url), each Store method timed apart:
// CPU (process.cpuUsage around the call; SQLite runs on this thread) and the bytes the process wrote meanwhile
// (/proc/self/io wchar: the WAL's appends and the checkpoints' copies into the database file).
//   node --max-old-space-size=8000 --import tsx scripts/bench/history-write.ts --partitions 100000 --cycles 8
// Flags: --partitions (100000), --cycles measured (8), --warmup (3), --url postgres://… (PostgreSQL instead).
// Prints per cycle each method's CPU and bytes, the detector memory's changes by key prefix; at the end the medians (and least CPU),
// the store's CPU and bytes per cycle (median and mean: a checkpoint lands in one cycle) and, on SQLite, table sizes.
// Not part of `npm test` or `npm run bench`.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import Database from "better-sqlite3";
import path from "node:path";
import { createAlertService } from "@/lib/alerts/alert-service";
import type { Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { createPostgresStore, createSqliteStore, type DetectorMemoryEntryChange, type Store } from "@/lib/store";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "./synthetic-world";

/** Per Store method: CPU ms and bytes written during this cycle's calls. */
type Tally = Map<string, { cpuMs: number; bytes: number; calls: number }>;

/** Bytes this process handed to write() so far (Linux). */
function readWrittenBytes(): number {
  const match = /^wchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
  return match === null ? 0 : Number(match[1]);
}

/** A cycle's detector memory changes per key prefix and kind (set or delete), and their text. */
function describeChanges(changes: readonly DetectorMemoryEntryChange[]): string {
  let text = 0;
  const kinds = new Map<string, number>();
  for (const ch of changes) {
    text += ch.key.length + (ch.value?.length ?? 0);
    const kind = ch.key.slice(0, ch.key.indexOf("|") + 1) + (ch.value === null ? "delete" : "set");
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const list = [...kinds].map(([k, n]) => `${k} ${n}`).join(", ");
  return `${changes.length} (${(text / 2 ** 20).toFixed(2)} MiB of key and value text): ${list}`;
}

/** The store with each method's CPU and written bytes added to `tally`. */
function timeStore(store: Store, tally: Tally): Store {
  const timed: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(store) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    timed[name] = async (...args: unknown[]) => {
      // Described before the clock starts: the description's own work is not the store's.
      if (name === "saveDetectorMemoryEntries") process.stdout.write(`  memory changes: ${describeChanges(args[0] as DetectorMemoryEntryChange[])}\n`);
      const cpu = process.cpuUsage();
      const bytes = readWrittenBytes();
      try {
        return await fn(...args);
      } finally {
        const d = process.cpuUsage(cpu);
        const entry = tally.get(name) ?? { cpuMs: 0, bytes: 0, calls: 0 };
        entry.cpuMs += (d.user + d.system) / 1000;
        entry.bytes += readWrittenBytes() - bytes;
        entry.calls++;
        tally.set(name, entry);
      }
    };
  }
  return timed as unknown as Store;
}

/** The median of a list. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Each table's and index's size in the SQLite file (dbstat). */
function printTableSizes(file: string): void {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT name, SUM(pgsize) AS bytes, COUNT(*) AS pages FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 12").all() as {
      name: string;
      bytes: number;
      pages: number;
    }[];
    for (const r of rows) process.stdout.write(`  ${r.name}: ${(r.bytes / 2 ** 20).toFixed(1)} MiB in ${r.pages} pages\n`);
    const kinds = db
      .prepare("SELECT substr(key, 1, instr(key, '|')) AS kind, COUNT(*) AS n, AVG(length(key) + length(value)) AS bytes FROM detector_memory GROUP BY 1")
      .all() as { kind: string; n: number; bytes: number }[];
    for (const k of kinds) process.stdout.write(`  detector_memory ${k.kind || "(other)"} ${k.n} rows, ${k.bytes.toFixed(0)} bytes of text each\n`);
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const partitions = Number(flags.partitions ?? 100_000);
  const cycles = Number(flags.cycles ?? 8);
  const warmup = Number(flags.warmup ?? 3);
  const url = flags.url ?? null;
  const fixture = readSnapshotFixture();
  const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, "east->west", partitions);
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-history-write-"));
  const store = url === null ? createSqliteStore(path.join(dir, "gapwatch.db")) : createPostgresStore(url);
  const tally: Tally = new Map();
  const timed = timeStore(store, tally);
  const config = configSchema.parse({
    clusters: world.base.clusters.map((c, i) => ({ alias: c.alias, bootstrap: `127.0.0.1:${9092 + i}` })),
    pollIntervalSeconds: cycleMs / 1000,
    store: url === null ? { kind: "sqlite" } : { kind: "postgres", url },
  });
  const alerts = createAlertService(timed, config);
  const pipeline = new CyclePipeline(config, timed, alerts);
  const perMethod = new Map<string, { cpuMs: number[]; bytes: number[] }>();
  const totals = { cpuMs: [] as number[], bytes: [] as number[] };
  let previous: Snapshot | null = null;
  try {
    for (let c = 1; c <= warmup + cycles; c++) {
      const now = world.base.takenAt + c * cycleMs;
      const current = snapshotCycle(world, c, now, previous);
      tally.clear();
      await pipeline.processCycle(current, previous, { offsetSyncs: world.syncs });
      previous = current;
      const line = [...tally].map(([n, t]) => `${n} ${t.cpuMs.toFixed(0)} ms ${(t.bytes / 2 ** 20).toFixed(1)} MiB`).join(", ");
      process.stdout.write(`${c > warmup ? "cycle" : "warm-up"} ${c}: ${line}\n`);
      if (c <= warmup) continue;
      let cycleCpu = 0;
      let cycleBytes = 0;
      for (const t of tally.values()) {
        cycleCpu += t.cpuMs;
        cycleBytes += t.bytes;
      }
      totals.cpuMs.push(cycleCpu);
      totals.bytes.push(cycleBytes);
      for (const [name, t] of tally) {
        const m = perMethod.get(name) ?? { cpuMs: [], bytes: [] };
        m.cpuMs.push(t.cpuMs);
        m.bytes.push(t.bytes);
        perMethod.set(name, m);
      }
    }
    alerts.stop();
    let cpu = 0;
    let bytes = 0;
    for (const [name, m] of perMethod) {
      cpu += median(m.cpuMs);
      bytes += median(m.bytes);
      // The least CPU of a call is closest to its own cost: process.cpuUsage counts every thread, so work started
      // elsewhere (garbage collection, most likely) counts in whichever call it overlaps (250–470 ms spikes, loaded).
      const least = Math.min(...m.cpuMs);
      process.stdout.write(
        `median ${name}: ${median(m.cpuMs).toFixed(0)} ms CPU (least ${least.toFixed(0)}), ${(median(m.bytes) / 2 ** 20).toFixed(2)} MiB written\n`,
      );
    }
    process.stdout.write(`median total (sum of medians): ${cpu.toFixed(0)} ms CPU, ${(bytes / 2 ** 20).toFixed(2)} MiB written\n`);
    const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
    process.stdout.write(
      `store per cycle: median ${median(totals.cpuMs).toFixed(0)} ms CPU, mean ${mean(totals.cpuMs).toFixed(0)} ms; ` +
        `written median ${(median(totals.bytes) / 2 ** 20).toFixed(1)} MiB, mean ${(mean(totals.bytes) / 2 ** 20).toFixed(1)} MiB\n`,
    );
    if (url === null) printTableSizes(path.join(dir, "gapwatch.db"));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
