import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultThresholds } from "@/lib/config/thresholds";
import { createSqliteStore, type Store } from "@/lib/store";
import { translateFlow, type FlowTranslation } from "@/lib/translation";
import { createTranslationFindingSource } from "@/lib/pipeline/translation-findings";
import { makeCheckpoint, makeFlow, makeGroup, makeHistory, steadySyncs, T0 } from "../translation/fixtures";

/** Group "app" at 9995 on orders/0, latest checkpoint 9000→9000 taken at T0: MM2 owes 9991 from T0 on. */
function owedAt(now: number): ReadonlyMap<string, FlowTranslation> {
  const checkpoint = { ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 };
  const ft = translateFlow({
    flow: makeFlow({ checkpoints: [checkpoint] }),
    sourceGroups: [makeGroup("app", { "orders/0": 9995n })],
    syncHistory: makeHistory({ 0: steadySyncs(10, 10_000) }),
    now,
  });
  return new Map([[ft.flow, ft]]);
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
