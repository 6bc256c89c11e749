// Size of a published read model (GAPWATCH_ROLE=collector writes one per cycle; web instances read it) and the CPU
// of trimming and encoding it and of decoding it (lib/pipeline/published-read-models.ts), at the sandbox's size and
// at 10,000 partitions, or at --partitions: the real CyclePipeline over the synthetic world (synthetic-world.ts) on a
// throwaway SQLite file, 3 cycles, then the last cycle's model encoded and decoded 5 times (medians; CPU is the
// process's user + system time, which other work on a shared machine does not inflate as it does wall time). The
// decode leaves long arrays to decode when first read (columnar-codec.ts): the first read of all of them (a walk of
// the whole model, less a second walk's time) is printed beside it. The previous codec (tagged JSON lines,
// read-model-codec.ts, which cycle recordings still use) is measured on the same model. Then the store's part: the
// collector's `store.publishReadModel` of the body and a web instance's refresh (PublishedReadModels: the row read and
// decoded), 5 publishes each on a throwaway SQLite file and, when a PostgreSQL is installed, a throwaway PostgreSQL
// (lib/sandbox/postgres.ts; the server's own CPU is not in the figures, its time is in the wall time). Prints; asserts
// nothing.
//   node_modules/.bin/tsx scripts/bench/read-model-codec.ts [--partitions 100000] [--skip-previous] [--skip-stores]
//   (100,000: ~3 min, ~4 GB)
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createAlertService } from "@/lib/alerts/alert-service";
import { listSyncHistories, readSyncHistories } from "@/lib/collector/sync-history";
import type { Snapshot } from "@/lib/collector/types";
import { configSchema } from "@/lib/config/schema";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { decodeReadModel, encodeReadModel, PublishedReadModels } from "@/lib/pipeline/published-read-models";
import { decodeTagged, encodeTagged } from "@/lib/pipeline/read-model-codec";
import { encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { trimReadModel } from "@/lib/pipeline/served-read-model";
import { serveTranslationRows } from "@/lib/pipeline/served-translations";
import type { FlowTranslation } from "@/lib/translation";
import { findPostgresBin, startPostgres } from "@/lib/sandbox/postgres";
import { createPostgresStore, createSqliteStore, type Store } from "@/lib/store";
import { parseFlags } from "../args";
import { readSnapshotFixture } from "./snapshot-fixture";
import { summarize } from "./stats";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "./synthetic-world";

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
      const current = snapshotCycle(world, c, now, previous);
      model = await pipeline.processCycle(current, previous, { offsetSyncs: world.syncs });
      previous = current;
    }
    return { model: model!, partitions: world.flowPartitions };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Measured = {
  bytes: number; encodeMs: number; encodeCpuMs: number; firstEncodeCpuMs: number; decodeMs: number; decodeCpuMs: number; firstReadCpuMs: number;
};

/** CPU (user + system) and wall time of `run`, in ms. */
async function time<T>(run: () => T | Promise<T>): Promise<{ value: T; cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { value, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

/** Reads every value of the model once (so every long array decodes); returns how many it read. */
function readEverything(value: unknown): number {
  if (typeof value !== "object" || value === null) return 1;
  if (ArrayBuffer.isView(value)) return 1;
  let count = 1;
  if (value instanceof Map) for (const [k, v] of value) count += readEverything(k) + readEverything(v);
  else if (value instanceof Set || Array.isArray(value)) for (const v of value as Iterable<unknown>) count += readEverything(v);
  else for (const key of Object.keys(value)) count += readEverything((value as Record<string, unknown>)[key]);
  return count;
}

const median = (values: number[]) => summarize(values).median;

/** The published codec: median encode and decode, and the CPU of first reading everything it left undecoded. */
async function measureColumnar(model: ReadModel): Promise<Measured> {
  const encodeMs: number[] = [];
  const encodeCpuMs: number[] = [];
  const decodeMs: number[] = [];
  const decodeCpuMs: number[] = [];
  const firstReadCpuMs: number[] = [];
  let body = Buffer.alloc(0);
  for (let i = 0; i < 5; i++) {
    const encoded = await time(() => encodeReadModel(model));
    encodeMs.push(encoded.wallMs);
    encodeCpuMs.push(encoded.cpuMs);
    // A copy, as the store hands a web instance bytes of their own.
    body = Buffer.from(encoded.value);
    const decoded = await time(() => decodeReadModel(body));
    decodeMs.push(decoded.wallMs);
    decodeCpuMs.push(decoded.cpuMs);
    const first = await time(() => readEverything(decoded.value));
    const again = await time(() => readEverything(decoded.value));
    firstReadCpuMs.push(Math.max(0, first.cpuMs - again.cpuMs));
  }
  return {
    bytes: body.length, encodeMs: median(encodeMs), encodeCpuMs: median(encodeCpuMs),
    // The first encode is the one that makes what the model had not made yet (a translation's rows, at base).
    firstEncodeCpuMs: encodeCpuMs[0]!, decodeMs: median(decodeMs), decodeCpuMs: median(decodeCpuMs),
    firstReadCpuMs: median(firstReadCpuMs),
  };
}

/** The trimmed model with its offset syncs as a Map of point arrays (the previous codec encodes no other history). */
function listServedSyncs(trimmed: ReadModel): ReadModel {
  return { ...trimmed, history: { offsetSyncs: new Map(listSyncHistories(trimmed.history.offsetSyncs)) } };
}

/** The previous codec on the same model (3 rounds: it is slow), or why it failed. */
async function measureTagged(model: ReadModel): Promise<string> {
  const encodeMs: number[] = [];
  const decodeCpuMs: number[] = [];
  const decodeMs: number[] = [];
  let bytes = 0;
  try {
    for (let i = 0; i < 3; i++) {
      const encoded = await time(() => encodeTagged(listServedSyncs(trimReadModel(model))));
      encodeMs.push(encoded.wallMs);
      bytes = Buffer.byteLength(encoded.value);
      const decoded = await time(() => decodeTagged(encoded.value));
      decodeMs.push(decoded.wallMs);
      decodeCpuMs.push(decoded.cpuMs);
    }
  } catch (err) {
    return `previous codec (tagged JSON lines): failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  return `previous codec (tagged JSON lines): body ${mib(bytes)} MiB, encode ${fixed(median(encodeMs))} ms, ` +
    `decode ${fixed(median(decodeMs))} ms (${fixed(median(decodeCpuMs))} ms CPU), everything decoded`;
}

/**
 * Where encoding's time goes: trimming, then each long part encoded alone (its columns and its header),
 * medians of 3 in ms of CPU.
 */
function measureParts(model: ReadModel): string {
  const cpuOf = (run: () => unknown) => {
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) {
      const cpu = process.cpuUsage();
      run();
      const used = process.cpuUsage(cpu);
      samples.push((used.user + used.system) / 1000);
    }
    return fixed(median(samples));
  };
  const trimmed = trimReadModel(model);
  const parts: [string, unknown][] = [
    ["flow partitions", trimmed.snapshot.flows.map((f) => f.partitions)],
    ["cluster partition states", trimmed.snapshot.clusters.map((c) => c.topics)],
    ["translation group rows", [...serveTranslationRows(trimmed.translations).values()].map((t) => (t as FlowTranslation).groups)],
    ["offset syncs", trimmed.history.offsetSyncs],
    ["everything else", { ...trimmed, snapshot: { ...trimmed.snapshot, flows: [], clusters: [] }, translations: [], history: [] }],
  ];
  return `encode CPU by part: trim ${cpuOf(() => trimReadModel(model))} ms, ` +
    parts.map(([name, part]) => `${name} ${cpuOf(() => encodeColumnar(part))}`).join(", ") + " ms";
}

/**
 * The store's write of the published body (the collector, each cycle) and a web instance's refresh that reads and
 * decodes it, medians of 5 publishes of successive cycles, on a store `open` opens empty.
 */
async function measureStore(name: string, open: () => Store, model: ReadModel): Promise<string> {
  const store = open();
  try {
    const body = encodeReadModel(model);
    const web = new PublishedReadModels(store);
    const publishCpu: number[] = [];
    const publishWall: number[] = [];
    const readCpu: number[] = [];
    const readWall: number[] = [];
    for (let cycle = 1; cycle <= 5; cycle++) {
      const published = await time(() => store.publishReadModel({ shard: "all", cycle, takenAt: Date.now(), body }));
      publishCpu.push(published.cpuMs);
      publishWall.push(published.wallMs);
      const read = await time(() => web.refresh());
      if (web.latest()?.snapshot.cycle !== model.snapshot.cycle) throw new Error(`${name}: the web side read no model`);
      readCpu.push(read.cpuMs);
      readWall.push(read.wallMs);
    }
    return `${name}: publishReadModel ${fixed(median(publishWall))} ms (${fixed(median(publishCpu))} ms CPU), ` +
      `a web instance's refresh (row read + decoded) ${fixed(median(readWall))} ms (${fixed(median(readCpu))} ms CPU), ` +
      `body ${mib(body.length)} MiB (medians of 5)`;
  } finally {
    await store.close();
  }
}

/** measureStore on a throwaway SQLite file, and on a throwaway PostgreSQL when one is installed. */
async function measureStores(model: ReadModel): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-codec-store-"));
  const lines: string[] = [];
  try {
    lines.push(await measureStore("SQLite", () => createSqliteStore(path.join(dir, "gapwatch.db")), model));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (findPostgresBin() === null) return [...lines, "PostgreSQL: not installed, not measured"];
  const server = await startPostgres();
  try {
    lines.push(await measureStore("PostgreSQL", () => createPostgresStore(server.url), model));
  } finally {
    await server.stop();
  }
  return lines;
}

/** Whether the published body is byte for byte the body of the trimmed model with every long part made as objects. */
function compareMaterialized(model: ReadModel): string {
  const published = encodeReadModel(model);
  const materialized = encodeColumnar(listServedSyncs(trimReadModel(model)));
  return `published body byte-identical to the encoding of the materialized model: ${published.equals(materialized) ? "yes" : "NO"} ` +
    `(${published.length} bytes)`;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
const fixed = (ms: number) => ms.toFixed(1);

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const sizes = flags.partitions === undefined ? [null, 10_000] : [Number(flags.partitions)];
  for (const size of sizes) {
    const { model, partitions } = await buildModel(size);
    const m = await measureColumnar(model);
    const histories = readSyncHistories(model.history.offsetSyncs);
    const syncs = [...histories.keys()].reduce((n, key) => n + histories.get(key)!.length, 0);
    // Both judged: wall time is what a web instance waits on a quiet machine; on a shared one other work inflates it.
    const judge = (ms: number) => (ms <= 100 ? "met" : "NOT met");
    const target = partitions >= 90_000 ? ` (target ≤ 100 ms: ${judge(m.decodeMs)} in wall time, ${judge(m.decodeCpuMs)} in CPU)` : "";
    process.stdout.write(
      `${partitions} flow partitions (${model.translations.get(flowId)?.groups.length ?? 0} groups, ${syncs} offset syncs, ${model.alerts.length} alerts): ` +
        `body ${mib(m.bytes)} MiB, encode ${fixed(m.encodeMs)} ms (${fixed(m.encodeCpuMs)} ms CPU; the first, as a collector's each ` +
        `cycle: ${fixed(m.firstEncodeCpuMs)} ms CPU), decode ${fixed(m.decodeMs)} ms (${fixed(m.decodeCpuMs)} ms CPU)${target}, ` +
        `first read of every long array ${fixed(m.firstReadCpuMs)} ms CPU (medians of 5)\n`,
    );
    process.stdout.write(`  ${measureParts(model)}\n`);
    process.stdout.write(`  ${compareMaterialized(model)}\n`);
    if (!flags["skip-previous"]) process.stdout.write(`  ${await measureTagged(model)}\n`);
    if (!flags["skip-stores"]) for (const line of await measureStores(model)) process.stdout.write(`  ${line}\n`);
  }
}

void main();
