// Writes tests/unit/pipeline/fixtures/checkpoint-watch-83f9656-stored-forms.json.gz: the checkpoint watch and
// translation findings as the version before one memory scheme (83f9656) stored them — version 2 (head, bases,
// segments), version 1 per shard (scaleOut) and version 1 whole — with that version's own writer and reader, taken
// from git history, and what its reader loaded from each. tests/unit/pipeline/rule-memory-upgrade.test.ts reads it.
//   node_modules/.bin/tsx scripts/checkpoint-watch-forms.ts
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import type { ShardAssignment } from "@/lib/collector/shards";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import type { Finding } from "@/lib/detect/types";
import type { CheckpointWatch } from "@/lib/detect/translation-detectors";
import { repoRoot } from "@/lib/sandbox/paths";
import { holdShards } from "../tests/unit/collector/shard-fixtures";

/** The commit whose writer made the stored forms (the last before one memory scheme). */
const oldCommit = "83f9656";
const fixturePath = path.join(repoRoot, "tests/unit/pipeline/fixtures/checkpoint-watch-83f9656-stored-forms.json.gz");

type Kv = { getValue(k: string): Promise<string | null>; setValue(k: string, v: string): Promise<void> };
type OldMemory = { watch: CheckpointWatchState; findings: readonly Finding[] };
/** The old module's one export (lib/pipeline/translation-memory.ts at 83f9656). */
type OldFactory = (store: Kv, scope?: ShardAssignment | null) => {
  follow(memory: OldMemory | null, now: number): Promise<OldMemory>;
  save(memory: OldMemory, now: number): Promise<void>;
};
let createTranslationMemoryStore: OldFactory;

const T0 = 1_700_000_000_000;
const kv = () => {
  const values = new Map<string, string>();
  return { values, getValue: async (k: string) => values.get(k) ?? null, setValue: async (k: string, v: string) => void values.set(k, v) };
};

function stale(flow: string, group: string, partition: number, owedMs: number, now: number): Finding {
  const evidence = {
    committed: "9995", checkpointUpstream: "9000", checkpointDownstream: "9000", checkpointAgeMs: owedMs + 5_000, expectedDownstream: "9991",
    owedForMs: owedMs, thresholdMs: 180_000, emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000,
  };
  return {
    key: `CHECKPOINT_STALE|${flow}|${group}|orders|${partition}`, type: "CHECKPOINT_STALE", severity: "warning", flow, cluster: flow.split("->")[1]!,
    topic: "orders", partition, group, summary: `MM2 has not checkpointed ${group} on orders/${partition} for ${Math.round(owedMs / 60_000)} min`,
    evidence, observedAt: now,
  };
}

function translationError(flow: string, group: string, now: number): Finding {
  return {
    key: `TRANSLATION_ERROR|${flow}|${group}`, type: "TRANSLATION_ERROR", severity: "critical", flow, cluster: flow.split("->")[1]!, group,
    summary: `Group ${group} would SKIP records on failover`, evidence: { skippedRecords: "5000", partitions: 1 }, observedAt: now,
  };
}

/** The watch after cycle i: partitions 0..n owed, some since later cycles, one paid at cycle 2. */
function watchAt(flows: string[], i: number): CheckpointWatch {
  const watch: CheckpointWatch = {};
  for (const flow of flows) {
    for (let p = 0; p < 6; p++) {
      if (i >= 2 && p === 5) continue;
      const since = p < 3 ? T0 : T0 + Math.min(i, p) * 10_000;
      watch[`${flow}|app|orders|${p}`] = { checkpoint: p === 4 ? null : `${9000 + Math.min(i, p)}:${8990 + Math.min(i, p)}`, dueSince: since };
    }
  }
  return watch;
}

/** A state holding `watch`, with the changes from `previous` a judgement would have recorded (the old writer takes them). */
function stateOf(previous: CheckpointWatchState | null, watch: CheckpointWatch): CheckpointWatchState {
  const state = new CheckpointWatchState(watch);
  const before = previous === null ? {} : Object.fromEntries(previous.entries());
  const changed = (state as unknown as { changed: Map<string, unknown> }).changed;
  for (const [key, entry] of Object.entries(watch)) {
    const was = before[key];
    if (was === undefined || was.checkpoint !== entry.checkpoint || was.dueSince !== entry.dueSince) changed.set(key, entry);
  }
  for (const key of Object.keys(before)) if (watch[key] === undefined) changed.set(key, null);
  return state;
}

async function writeCycles(store: Kv, flows: string[], cycles: number, scope: ShardAssignment | null) {
  const stored = createTranslationMemoryStore(store, scope);
  let state: CheckpointWatchState | null = null;
  let memory: OldMemory | null = null;
  let now = T0;
  for (let i = 0; i < cycles; i++) {
    now = T0 + 190_000 + i * 10_000;
    await stored.follow(memory, now);
    state = stateOf(state, watchAt(flows, i));
    // Findings of this cycle (stale growing, an error) and one carried from an earlier cycle.
    const findings = flows.flatMap((flow) => [stale(flow, "app", 0, now - T0, now), translationError(flow, "app", now), stale(flow, "app", 1, 185_000, T0 + 185_000)]);
    memory = { watch: state, findings };
    await stored.save(memory, now);
  }
  return now;
}

async function readBack(store: Kv, scope: ShardAssignment | null, readAt: number) {
  const read = await createTranslationMemoryStore(store, scope).follow(null, readAt);
  return { watch: Object.fromEntries(read.watch.entries()), findings: read.findings };
}

async function main() {
  // The old module beside lib/pipeline, so its imports resolve as they did.
  const oldModule = path.join(repoRoot, "lib/pipeline/.translation-memory-83f9656.ts");
  writeFileSync(oldModule, execFileSync("git", ["show", `${oldCommit}:lib/pipeline/translation-memory.ts`], { cwd: repoRoot }));
  try {
    ({ createTranslationMemoryStore } = (await import(pathToFileURL(oldModule).href)) as { createTranslationMemoryStore: OldFactory });
    await writeFixtures();
  } finally {
    rmSync(oldModule);
  }
}

async function writeFixtures() {
  const fixtures: Record<string, unknown> = {};
  // Version 2, one value set for every flow: head, base, segments (cycles 1..5 change a few entries each).
  const single = kv();
  const last = await writeCycles(single, ["east->west", "east->south"], 5, null);
  const readAt = last + 25_000;
  fixtures.version2 = { readAt, values: Object.fromEntries(single.values), expected: await readBack(single, null, readAt) };
  // Version 1 per shard (scaleOut, 4 shards: east->west on 1, east->south on 2), and what a collector holding 1 and 2 reads.
  const sharded = kv();
  const lastShard = await writeCycles(sharded, ["east->west", "east->south"], 3, holdShards([0, 1, 2, 3], 4));
  const readAtShard = lastShard + 25_000;
  fixtures.version1Shards = {
    readAt: readAtShard, values: Object.fromEntries(sharded.values), shards: 4, held: [1, 2],
    expected: await readBack(sharded, holdShards([1, 2], 4), readAtShard),
  };
  // Version 1, the single value (what versions before the segments wrote): a shard's value is that form; read whole.
  const v1 = kv();
  const whole = JSON.parse(sharded.values.get("checkpoint-watch@1")!) as { watch: CheckpointWatch };
  const south = JSON.parse(sharded.values.get("checkpoint-watch@2")!) as { watch: CheckpointWatch; findings: unknown[]; current: unknown[] };
  const merged = { ...JSON.parse(sharded.values.get("checkpoint-watch@1")!), watch: { ...whole.watch, ...south.watch } };
  merged.findings = [...merged.findings, ...south.findings];
  merged.current = [...merged.current, ...south.current];
  await v1.setValue("checkpoint-watch", JSON.stringify(merged));
  fixtures.version1 = { readAt: readAtShard, values: Object.fromEntries(v1.values), expected: await readBack(v1, null, readAtShard) };
  writeFileSync(fixturePath, gzipSync(JSON.stringify(fixtures)));
}
void main();
