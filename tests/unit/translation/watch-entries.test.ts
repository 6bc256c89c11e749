import { describe, expect, it } from "vitest";
import { translateFlow } from "@/lib/translation";
import { type CheckpointWatch, detectStaleCheckpoints, listWatchChanges, loadWatchEntries } from "@/lib/detect/translation-detectors";
import { makeCheckpoint, makeFlow, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

/** Group "app" committed 150 on orders/0 and 250 on orders/1; MM2's last checkpoints are of 100 on both. */
function owedTranslation(now: number, committed1 = 250n) {
  return translateFlow({
    flow: makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 100n, 100n), makeCheckpoint("app", "orders", 1, 100n, 100n)] }),
    sourceGroups: [makeGroup("app", { "orders/0": 150n, "orders/1": committed1 })],
    syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]), 1: syncs([0, 0], [100, 100], [200, 200]) }),
    now,
  });
}

describe("checkpoint watch entries", () => {
  it("lists only the entries that changed, and the store reads back the watch", () => {
    const store = new Map<string, string>();
    const apply = (changes: { key: string; value: string | null }[]) => {
      for (const { key, value } of changes) {
        if (value === null) store.delete(key);
        else store.set(key, value);
      }
      return changes;
    };
    const first = detectStaleCheckpoints(owedTranslation(T0), {}, T0).watch;
    expect(apply(listWatchChanges({}, first))).toEqual([
      { key: "east->west|app|orders|0", value: JSON.stringify({ checkpoint: "100:100", dueSince: T0 }) },
      { key: "east->west|app|orders|1", value: JSON.stringify({ checkpoint: "100:100", dueSince: T0 }) },
    ]);
    // Still owed since the same checkpoints: nothing to write.
    const second = detectStaleCheckpoints(owedTranslation(T0 + 5_000), first, T0 + 5_000).watch;
    expect(listWatchChanges(first, second)).toEqual([]);
    // orders/1 caught up with its checkpoint (committed 100): its entry goes.
    const third = detectStaleCheckpoints(owedTranslation(T0 + 10_000, 100n), second, T0 + 10_000).watch;
    expect(apply(listWatchChanges(second, third))).toEqual([{ key: "east->west|app|orders|1", value: null }]);
    expect(loadWatchEntries(store)).toEqual(third);
  });

  it("leaves out stored entries that are not watch entries", () => {
    const watch: CheckpointWatch = loadWatchEntries([
      ["east->west|app|orders|0", JSON.stringify({ checkpoint: null, dueSince: T0 })],
      ["east->west|app|orders|1", "{not json"],
      ["east->west|app|orders|2", JSON.stringify({ checkpoint: 5, dueSince: T0 })],
    ]);
    expect(watch).toEqual({ "east->west|app|orders|0": { checkpoint: null, dueSince: T0 } });
  });
});
