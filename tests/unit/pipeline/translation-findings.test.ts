import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ShardAssignment } from "@/lib/collector/shards";
import { flowPartitionKey } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { createSqliteStore, type Store } from "@/lib/store";
import { translateFlow, type FlowTranslation } from "@/lib/translation";
import { createTranslationFindingSource } from "@/lib/pipeline/translation-findings";
import { makeCheckpoint, makeFlow, makeGroup, makeHistory, steadySyncs, T0 } from "../translation/fixtures";

/**
 * Group "app" at 9995 on orders/0, latest checkpoint 9000→9000 taken at T0: MM2 owes 9991 from T0 on. `flows`: the
 * flows translated (each the same, under its id).
 */
function owedAt(now: number, flows: readonly string[] = ["east->west"]): ReadonlyMap<string, FlowTranslation> {
  return new Map(flows.map((id) => [id, translateOwed(now, id)]));
}

function translateOwed(now: number, id: string): FlowTranslation {
  const checkpoint = { ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 };
  return translateFlow({
    flow: makeFlow({ id, target: id.split("->")[1]!, checkpoints: [checkpoint] }),
    sourceGroups: [makeGroup("app", { "orders/0": 9995n })],
    syncHistory: new Map([[flowPartitionKey(id, "orders", 0), steadySyncs(10, 10_000)]]),
    now,
  });
}

/** As owedAt, but the group's OffsetFetch failed this cycle: the rows use the read from T0. */
function unknownAt(now: number): ReadonlyMap<string, FlowTranslation> {
  const checkpoint = { ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 };
  const group = makeGroup("app", { "orders/0": 9995n }, { error: "OffsetFetch: COORDINATOR_NOT_AVAILABLE", dataAt: T0 });
  const ft = translateFlow({ flow: makeFlow({ checkpoints: [checkpoint] }), sourceGroups: [group], syncHistory: makeHistory({ 0: steadySyncs(10, 10_000) }), now });
  return new Map([[ft.flow, ft]]);
}

/** Runs a finding source over the given times; returns the CHECKPOINT_STALE evidence owedForMs per call. */
async function runSource(store: Store, times: number[]): Promise<(number | null)[][]> {
  const source = createTranslationFindingSource(store);
  const owed: (number | null)[][] = [];
  for (const now of times) {
    const findings = await source(owedAt(now), now, defaultThresholds);
    owed.push(findings.filter((f) => f.type === "CHECKPOINT_STALE").map((f) => (typeof f.evidence.owedForMs === "number" ? f.evidence.owedForMs : null)));
  }
  return owed;
}

let dir: string;
let stores: Store[];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-watch-"));
  stores = [];
});

afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function openStore(): Store {
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
}

describe("the translation finding source keeps its checkpoint watch across restarts", () => {
  it("after a restart the owed checkpoint is still owed since T0: the finding neither resolves nor starts over", async () => {
    const first = openStore();
    expect(await runSource(first, [T0, T0 + 100_000, T0 + 190_000])).toEqual([[], [], [190_000]]);
    await first.close();
    stores = [];
    // A new process: new store handle, new finding source, same database file.
    expect(await runSource(openStore(), [T0 + 200_000, T0 + 210_000])).toEqual([[200_000], [210_000]]);
  });

  it("starts afresh (and does not throw) on a stored watch that is corrupt or of another shape", async () => {
    const store = openStore();
    await store.setValue("checkpoint-watch", "{not json");
    expect(await runSource(store, [T0 + 200_000, T0 + 390_000])).toEqual([[], [190_000]]);
    await store.setValue("checkpoint-watch", JSON.stringify({ version: 2, watch: [] }));
    expect(await runSource(store, [T0 + 400_000])).toEqual([[]]);
    expect(JSON.parse((await store.getValue("checkpoint-watch")) ?? "null")).toEqual({
      version: 1,
      watch: { "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 + 400_000 } },
    });
  });
});

describe("a group whose offsets could not be read is not judged", () => {
  it("keeps CHECKPOINT_STALE (same evidence, same clock) while the group is unknown, and judges again once read", async () => {
    const store = openStore();
    let latest = owedAt(T0);
    const source = createTranslationFindingSource(store);
    const staleOwed = async (now: number) => (await source(latest, now, defaultThresholds)).filter((f) => f.type === "CHECKPOINT_STALE").map((f) => f.evidence.owedForMs);
    expect(await staleOwed(T0)).toEqual([]);
    latest = owedAt(T0 + 190_000);
    expect(await staleOwed(T0 + 190_000)).toEqual([190_000]);
    latest = unknownAt(T0 + 200_000);
    expect(latest.get("east->west")!.groups[0]!.unknown).toBe("OffsetFetch: COORDINATOR_NOT_AVAILABLE (last read 200 s ago)");
    // Carried as last seen: neither resolved nor re-dated on data that was not read.
    expect(await staleOwed(T0 + 200_000)).toEqual([190_000]);
    expect(await staleOwed(T0 + 260_000)).toEqual([190_000]);
    latest = owedAt(T0 + 270_000);
    // Read again: the clock kept its start (T0), so the checkpoint is owed for 270 s.
    expect(await staleOwed(T0 + 270_000)).toEqual([270_000]);
  });

  it("raises nothing for a group that was never judged and is unknown now", async () => {
    const store = openStore();
    const latest = unknownAt(T0 + 500_000);
    const source = createTranslationFindingSource(store);
    expect(await source(latest, T0 + 500_000, defaultThresholds)).toEqual([]);
  });
});

/** With 4 shards: east->west is on shard 1, east->south on shard 2. */
const SHARDS = 4;

function holding(shards: number[]): ShardAssignment {
  const assignment = new ShardAssignment(SHARDS);
  assignment.update(shards);
  assignment.beginCycle();
  return assignment;
}

/** The CHECKPOINT_STALE findings' flow and owedForMs. */
const staleOf = (findings: readonly { type: string; flow?: string | null; evidence: Record<string, unknown> }[]) =>
  findings.filter((f) => f.type === "CHECKPOINT_STALE").map((f) => [f.flow, f.evidence.owedForMs]);

const storedWatch = async (store: Store, key: string) => JSON.parse((await store.getValue(key)) ?? "null") as unknown;

describe("collectors sharing the work keep the checkpoint watch per shard (scaleOut)", () => {
  it("two collectors never overwrite each other's clocks, and a shard's new owner keeps the previous owner's", async () => {
    const store = openStore();
    const a = createTranslationFindingSource(store, holding([1]));
    const bShards = holding([0, 2, 3]);
    const b = createTranslationFindingSource(store, bShards);
    // A judges east->west from T0, B judges east->south from T0 + 50 s; each writes its own shard's value only.
    expect(staleOf(await a(owedAt(T0), T0, defaultThresholds))).toEqual([]);
    expect(staleOf(await b(owedAt(T0 + 50_000, ["east->south"]), T0 + 50_000, defaultThresholds))).toEqual([]);
    expect(staleOf(await a(owedAt(T0 + 190_000), T0 + 190_000, defaultThresholds))).toEqual([["east->west", 190_000]]);
    expect(staleOf(await b(owedAt(T0 + 250_000, ["east->south"]), T0 + 250_000, defaultThresholds))).toEqual([["east->south", 200_000]]);
    expect(await storedWatch(store, "checkpoint-watch@1")).toEqual({
      version: 1,
      watch: { "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 } },
    });
    const bWatch = { "east->south|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 + 50_000 } };
    expect(await storedWatch(store, "checkpoint-watch@2")).toEqual({ version: 1, watch: bWatch });
    expect([await storedWatch(store, "checkpoint-watch@0"), await storedWatch(store, "checkpoint-watch@3")]).toEqual([
      { version: 1, watch: {} },
      { version: 1, watch: {} },
    ]);
    expect(await store.getValue("checkpoint-watch")).toBeNull();

    // A is gone; B gains shard 1: the clock of east->west still runs from T0, B's own from T0 + 50 s.
    bShards.update([0, 1, 2, 3]);
    bShards.beginCycle();
    const both = owedAt(T0 + 300_000, ["east->west", "east->south"]);
    expect(staleOf(await b(both, T0 + 300_000, defaultThresholds))).toEqual([
      ["east->west", 300_000],
      ["east->south", 250_000],
    ]);
    expect(await storedWatch(store, "checkpoint-watch@1")).toEqual({
      version: 1,
      watch: { "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 } },
    });

    // B loses shard 2: its clock is no longer held (a later gain reads what the store has), and stays stored.
    bShards.update([0, 1, 3]);
    bShards.beginCycle();
    expect(staleOf(await b(owedAt(T0 + 310_000), T0 + 310_000, defaultThresholds))).toEqual([["east->west", 310_000]]);
    expect(await storedWatch(store, "checkpoint-watch@2")).toEqual({ version: 1, watch: bWatch });
  });

  it("a shard never stored takes its flows' clocks from the single value of the version before, once", async () => {
    const store = openStore();
    const legacy = {
      version: 1,
      watch: {
        "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 },
        "east->south|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 + 20_000 },
      },
    };
    await store.setValue("checkpoint-watch", JSON.stringify(legacy));
    const a = createTranslationFindingSource(store, holding([1]));
    expect(staleOf(await a(owedAt(T0 + 190_000), T0 + 190_000, defaultThresholds))).toEqual([["east->west", 190_000]]);
    expect(await storedWatch(store, "checkpoint-watch@1")).toEqual({
      version: 1,
      watch: { "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 } },
    });
    // The old value is left for the shards not upgraded yet; once a shard is stored, it is what a restart reads.
    expect(await storedWatch(store, "checkpoint-watch")).toEqual(legacy);
    const newer = { "east->west|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 + 150_000 } };
    await store.setValue("checkpoint-watch", JSON.stringify({ version: 1, watch: { ...legacy.watch, ...newer } }));
    const restarted = createTranslationFindingSource(store, holding([1, 2]));
    expect(staleOf(await restarted(owedAt(T0 + 210_000, ["east->west", "east->south"]), T0 + 210_000, defaultThresholds))).toEqual([
      ["east->west", 210_000],
      ["east->south", 190_000],
    ]);
    expect(await storedWatch(store, "checkpoint-watch@2")).toEqual({
      version: 1,
      watch: { "east->south|app|orders|0": { checkpoint: "9000:9000", dueSince: T0 + 20_000 } },
    });
  });
});
