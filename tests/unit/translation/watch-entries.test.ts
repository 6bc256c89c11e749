import { describe, expect, it } from "vitest";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { createDetectorMemory } from "@/lib/detect/memory";
import { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange } from "@/lib/detect/memory-persistence";
import { translateFlow } from "@/lib/translation";
import { makeCheckpoint, makeFlow, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

/** Group "app" committed 150 on orders/0 and `committed1` on orders/1; MM2's last checkpoints are of 100 on both. */
function owedTranslation(now: number, committed1 = 250n) {
  return translateFlow({
    flow: makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 100n, 100n), makeCheckpoint("app", "orders", 1, 100n, 100n)] }),
    sourceGroups: [makeGroup("app", { "orders/0": 150n, "orders/1": committed1 })],
    syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]), 1: syncs([0, 0], [100, 100], [200, 200]) }),
    now,
  });
}

/** Applies changes to a key-value store, as the pipeline's store does; returns them. */
function applyTo(store: Map<string, string>, changes: MemoryEntryChange[]): MemoryEntryChange[] {
  for (const { key, value } of changes) {
    if (value === null) store.delete(key);
    else store.set(key, value);
  }
  return changes;
}

/** The changed rows of the watch (as numbers: `watches|<flow>|<chunk>`, its keys `watches-keys|…`; old `watch|` rows). */
const watchChanges = (changes: MemoryEntryChange[]) => changes.filter((c) => /^watch(es|es-keys)?\|/.test(c.key));
/** The watch the store's rows give back, as [checkpoint, dueSince] per key. */
const readBack = (store: Map<string, string>) =>
  Object.fromEntries(Object.entries(loadDetectorMemoryEntries(store).watch).map(([k, e]) => [k, [e.checkpoint, e.dueSince]]));
const entriesOf = (watch: CheckpointWatchState) =>
  Object.fromEntries([...watch.entries()].map(([k, e]) => [k, [e.checkpoint, e.dueSince]]));

describe("the checkpoint watch as memory entries (watches|, stored as numbers)", () => {
  it("writes only when an entry changed, and the store reads back the watch", () => {
    const store = new Map<string, string>();
    const persister = createMemoryPersister();
    const watch = new CheckpointWatchState();
    const list = (now: number) => watchChanges(applyTo(store, persister.listChanges({ ...createDetectorMemory(), checkpointWatch: watch }, now)));
    watch.judge(owedTranslation(T0), T0);
    // The flow's first chunk of numbers and its keys.
    expect(list(T0).map((c) => c.key).sort()).toEqual(["watches-keys|east->west|0", "watches|east->west|0"]);
    expect(readBack(store)).toEqual({ "east->west|app|orders|0": ["100:100", T0], "east->west|app|orders|1": ["100:100", T0] });
    // Still owed since the same checkpoints: nothing to write.
    watch.judge(owedTranslation(T0 + 5_000), T0 + 5_000);
    expect(list(T0 + 5_000)).toEqual([]);
    // orders/1 caught up with its checkpoint (committed 100): its entry goes, the chunk is written again.
    watch.judge(owedTranslation(T0 + 10_000, 100n), T0 + 10_000);
    expect(list(T0 + 10_000).map((c) => c.key)).toEqual(["watches|east->west|0"]);
    expect(readBack(store)).toEqual({ "east->west|app|orders|0": ["100:100", T0] });
    expect(readBack(store)).toEqual(entriesOf(watch));
  });

  it("compares a watch it has not seen whole with what the store holds (a restart, a failed write, a handover)", () => {
    // Rows of the previous version's form (one JSON row per entry): moved to numbers by the next write.
    const stored: [string, string][] = [
      ["watch|east->west|app|orders|0", JSON.stringify(["100:100", T0])],
      ["watch|east->west|app|orders|7", JSON.stringify([null, T0])],
    ];
    const store = new Map(stored);
    const persister = createMemoryPersister(stored);
    // The watch as read back, then judged: orders/0 unchanged, orders/1 newly owed, orders/7 gone.
    const watch = new CheckpointWatchState(loadDetectorMemoryEntries(stored).watch);
    watch.judge(owedTranslation(T0 + 5_000), T0 + 5_000);
    const moved = watchChanges(applyTo(store, persister.listChanges({ ...createDetectorMemory(), checkpointWatch: watch }, T0 + 5_000)));
    expect(moved.filter((c) => c.key.startsWith("watch|"))).toEqual([
      { key: "watch|east->west|app|orders|0", value: null },
      { key: "watch|east->west|app|orders|7", value: null },
    ]);
    expect([...store.keys()].filter((k) => k.startsWith("watch|"))).toEqual([]);
    expect(readBack(store)).toEqual({ "east->west|app|orders|0": ["100:100", T0], "east->west|app|orders|1": ["100:100", T0 + 5_000] });
    // A gained shard's rows learnt: the next listing deletes those the watch does not hold.
    persister.learn([["watch|east->south|app|orders|0", JSON.stringify([null, T0])]]);
    expect(watchChanges(persister.listChanges({ ...createDetectorMemory(), checkpointWatch: watch }, T0 + 10_000))).toEqual([
      { key: "watch|east->south|app|orders|0", value: null },
    ]);
  });

  it("starts afresh, and says why, on a stored entry that is not [checkpoint, dueSince]", () => {
    for (const value of [JSON.stringify({ checkpoint: null, dueSince: T0 }), JSON.stringify([5, T0]), JSON.stringify(["1:1", -1])]) {
      const loaded = loadDetectorMemoryEntries([["watch|east->west|app|orders|0", value]]);
      expect([loaded.watch, loaded.error]).toEqual([{}, "stored entry watch|east->west|app|orders|0 is not a checkpoint watch entry [checkpoint, dueSince]"]);
    }
    expect(loadDetectorMemoryEntries([["watch|east->west|app|orders|0", JSON.stringify(["1:1", T0])], ["watch-entries", "1"]])).toMatchObject({
      watch: { "east->west|app|orders|0": { checkpoint: "1:1", dueSince: T0 } },
      watchStored: true,
      error: null,
    });
  });
});
