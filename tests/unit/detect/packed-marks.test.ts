import { describe, expect, it } from "vitest";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { createMarkTableBuilder, type MarkColumnsSpec } from "@/lib/detect/mark-columns";
import { createDetectorMemory } from "@/lib/detect/memory";
import { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange, type MemoryPersister } from "@/lib/detect/memory-persistence";
import { decodePackedRows, forEachPackedEntry, PackedMarks } from "@/lib/detect/packed-marks";
import type { CheckpointWatch } from "@/lib/detect/translation-detectors";
import type { DetectorMemory } from "@/lib/detect/types";
import { T0 } from "./fixtures";

type SyncMarker = DetectorMemory["syncMarkers"][string];

/** The offset-sync markers' columns, as sync-steps.ts builds them. */
const markerSpec: MarkColumnsSpec<SyncMarker> = {
  name: "syncMarkers",
  width: 2,
  read: (m) => ({ numbers: [Number(m.upstream), Number(m.downstream)] }),
  make: (columns, slot) => ({ upstream: String(columns[0]![slot]), downstream: String(columns[1]![slot]) }),
};

/** A seeded generator of integers in [0, n). */
function createRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return Math.floor((state / 2 ** 32) * n);
  };
}

/**
 * Random cycles of sync-marker sections over three flows, each a detector's table built from the last: partitions
 * come and go (one flow grows past several chunks, then shrinks to a few: its slots are compacted), markers move by
 * small and large offsets (beyond 2^32), and now and then a section is a plain record (a copy, as after a shard merge).
 */
function createRandomSections(seed: number, cycles: number): Record<string, SyncMarker>[] {
  const random = createRandom(seed);
  const offsets = new Map<string, number>();
  let section: Record<string, SyncMarker> = {};
  return Array.from({ length: cycles }, (_, cycle) => {
    const next = createMarkTableBuilder(section, T0 + cycle * 60_000, markerSpec);
    const sizes = { a: cycle < cycles / 2 ? 600 + cycle * 1000 : 40, b: 50 + random(30), "c->d": random(5) };
    for (const [flow, size] of Object.entries(sizes)) {
      for (let p = 0; p < size; p++) {
        const key = `${flow}|t${p % 7}|${p}`;
        const last = offsets.get(key);
        const offset = (last ?? random(2) * 2 ** 40) + (random(10) === 0 ? 1 + random(1000) : 0);
        offsets.set(key, offset);
        next.put(next.slotOf(key), offset !== last || !(key in section), offset, offset + (offset % 3));
      }
    }
    section = next.finish();
    return random(5) === 0 ? { ...section } : section;
  });
}

/** Applies changes to a key-value store as the pipeline's store does. */
function apply(store: Map<string, string>, changes: readonly MemoryEntryChange[]): void {
  for (const { key, value } of changes) {
    if (value === null) store.delete(key);
    else store.set(key, value);
  }
}

/** Lists each section's changes, from `cycle` on, into `store`; returns the memory loaded after each. */
function persistFrom(persister: MemoryPersister, store: Map<string, string>, sections: readonly Record<string, SyncMarker>[], cycle: number) {
  return sections.slice(cycle).map((syncMarkers, i) => {
    const now = T0 + (cycle + i) * 60_000;
    apply(store, persister.listChanges({ ...createDetectorMemory(), syncMarkers }, now));
    return loadDetectorMemoryEntries(store).memory.syncMarkers;
  });
}

describe("sync markers stored as numbers", () => {
  it("loads back every cycle's markers, over random tables", () => {
    for (const seed of [1, 2]) {
      const sections = createRandomSections(seed, 12);
      const store = new Map<string, string>();
      const loaded = persistFrom(createMemoryPersister(), store, sections, 0);
      loaded.forEach((markers, i) => expect(markers).toEqual({ ...sections[i]! }));
      // Stored as chunk rows alone, and the shrunk flow's chunks past its compacted slots deleted.
      expect([...store.keys()].filter((k) => k.startsWith("sync|"))).toEqual([]);
      expect([...store.keys()].filter((k) => k.startsWith("syncs|a|")).sort()).toEqual(["syncs|a|0"]);
    }
  }, 60_000);

  it("writes, after a restart in the middle, what it writes without one", () => {
    for (const [seed, restartAt] of [[4, 3], [5, 8]] as const) {
      const sections = createRandomSections(seed, 12);
      const steady = new Map<string, string>();
      const expected = persistFrom(createMemoryPersister(), steady, sections, 0);
      const restarted = new Map<string, string>();
      persistFrom(createMemoryPersister(), restarted, sections.slice(0, restartAt), 0);
      // A restart: a new persister from the store's rows, the memory read from them.
      const read = loadDetectorMemoryEntries(restarted).memory.syncMarkers;
      expect(read).toEqual({ ...sections[restartAt - 1]! });
      const after = persistFrom(createMemoryPersister([...restarted]), restarted, sections, restartAt);
      expect(after).toEqual(expected.slice(restartAt));
      expect(loadDetectorMemoryEntries(restarted)).toEqual(loadDetectorMemoryEntries(steady));
    }
  }, 60_000);

  it("reads the rows a version before wrote, then stores them as numbers (an upgrade)", () => {
    const exact = { upstream: "1099511627776", downstream: "1099511627777" };
    const beyond = { upstream: "9007199254740993", downstream: "9007199254740993" };
    // As the version before stored the markers: a JSON row each.
    const old: [string, string][] = [
      ["cycle-at", String(T0)],
      ["sync|f|t|0", JSON.stringify(exact)],
      ["sync|f|t|1", JSON.stringify({ upstream: "7", downstream: "7" })],
      ["sync|g|t|0", JSON.stringify(beyond)],
    ];
    const loaded = loadDetectorMemoryEntries(old);
    expect(loaded.error).toBeNull();
    expect(loaded.memory.syncMarkers).toEqual({ "f|t|0": exact, "f|t|1": { upstream: "7", downstream: "7" }, "g|t|0": beyond });
    const store = new Map(old);
    // The next cycle: f|t|1 moved on; the markers otherwise as read.
    const memory = { ...loaded.memory, syncMarkers: { ...loaded.memory.syncMarkers, "f|t|1": { upstream: "9", downstream: "9" } } };
    const changes = createMemoryPersister(old).listChanges(memory, T0 + 60_000);
    apply(store, changes);
    expect(changes.filter((c) => c.key.startsWith("sync|"))).toEqual([
      { key: "sync|f|t|0", value: null },
      { key: "sync|f|t|1", value: null },
    ]);
    // A marker beyond 2^53 is not exact as numbers: it keeps its JSON row.
    expect([...store.keys()].sort()).toEqual(["cycle-at", "syncs-keys|f|0", "syncs|f|0", "sync|g|t|0"]);
    expect(loadDetectorMemoryEntries(store).memory.syncMarkers).toEqual(memory.syncMarkers);
  });

  it("starts from an empty memory, and says why, when a chunk row is damaged", () => {
    const loaded = loadDetectorMemoryEntries([["cycle-at", "12"], ["syncs|f|0", "AAA"], ["syncs-keys|f|0", '["f|t|0"]']]);
    expect(loaded.memory).toEqual(createDetectorMemory());
    expect(loaded.error).toContain("stored entry syncs|f|0 is not whole slots");
  });
});

/**
 * Random checkpoint watches over three flows, cycle after cycle: entries come and go, their clocks and checkpoints
 * change; checkpoints are absent, offsets exact as numbers, offsets beyond 2^53, or a text that is no checkpoint.
 */
function createRandomWatches(seed: number, cycles: number): CheckpointWatch[] {
  const random = createRandom(seed);
  const checkpoints = [null, "0:0", "1099511627776:17", "9007199254740993:5", "oops", "12:"];
  let watch: CheckpointWatch = {};
  return Array.from({ length: cycles }, (_, cycle) => {
    const next: CheckpointWatch = {};
    for (const flow of ["a", "b", "c->d"]) {
      for (let p = 0; p < (flow === "a" ? 1500 : 40); p++) {
        const key = `${flow}|g${p % 3}|t|${p}`;
        if (random(4) === 0) continue;
        const kept = watch[key];
        next[key] =
          kept !== undefined && random(3) > 0
            ? kept
            : { checkpoint: random(3) === 0 ? `${random(1000)}:${random(1000)}` : checkpoints[random(checkpoints.length)]!, dueSince: T0 + cycle * 1000 };
      }
    }
    watch = next;
    return watch;
  });
}

/** Lists each watch's changes (a state made from it: compared whole), from `cycle` on, into `store`. */
function persistWatches(persister: MemoryPersister, store: Map<string, string>, watches: readonly CheckpointWatch[]) {
  return watches.map((watch, i) => {
    apply(store, persister.listChanges({ ...createDetectorMemory(), checkpointWatch: new CheckpointWatchState(watch) }, T0 + i * 1000));
    return loadDetectorMemoryEntries(store).watch;
  });
}

describe("entries with texts stored as numbers and a texts row per chunk", () => {
  /** Each stored entry of a section's rows: `key numbers… | texts…`. */
  const decode = (rows: [string, string][]) => {
    const entries: string[] = [];
    forEachPackedEntry(decodePackedRows(rows, "k", 1, 2), 1, (key, numbers, texts) => entries.push(`${key} ${numbers.join()} | ${texts.join()}`), 2);
    return entries;
  };
  const flushed = (marks: PackedMarks, rows: Map<string, string>) => {
    const changes: MemoryEntryChange[] = [];
    marks.flush(changes);
    apply(rows, changes);
    return changes.map((c) => c.key);
  };

  it("rewrites a chunk's texts only when one of them changes, and keeps them through a compaction", () => {
    const marks = new PackedMarks("k", 1, 2);
    const rows = new Map<string, string>();
    const key = (p: number) => `f|t|${p}`;
    for (let p = 0; p < 6000; p++) marks.setNumbers(key(p), [p], [`id-${p % 3}`, p === 7 ? "c-2" : undefined]);
    expect(flushed(marks, rows).filter((k) => k.endsWith("|0"))).toEqual(["k|f|0", "k-keys|f|0", "k-texts|f|0"]);
    expect(decode([...rows])[7]).toBe(`${key(7)} 7 | id-1,c-2`);
    // Numbers changed: the numbers row alone; a text changed: its chunk's texts row too.
    marks.setNumbers(key(1500), [1], ["id-0", null]);
    expect(flushed(marks, rows)).toEqual(["k|f|1"]);
    marks.setFromColumns(key(5), [Float64Array.of(0, 55)], 1, [[null, "id-new"], [null, null]]);
    expect(flushed(marks, rows)).toEqual(["k|f|0", "k-texts|f|0"]);
    expect(decode([...rows])[5]).toBe(`${key(5)} 55 | id-new,`);
    // Ten left: the slots are compacted into one chunk, its texts with them, the chunks past it deleted.
    for (let p = 10; p < 6000; p++) marks.delete(key(p));
    flushed(marks, rows);
    expect([...rows.keys()].sort()).toEqual(["k-keys|f|0", "k-texts|f|0", "k|f|0"]);
    expect(decode([...rows])).toEqual(Array.from({ length: 10 }, (_, p) => `${key(p)} ${p === 5 ? 55 : p} | ${p === 5 ? "id-new" : `id-${p % 3}`},${p === 7 ? "c-2" : ""}`));
  });
});

describe("the checkpoint watch stored as numbers", () => {
  it("loads back every cycle's watch, and writes after a restart what it writes without one", () => {
    const watches = createRandomWatches(7, 10);
    const steady = new Map<string, string>();
    persistWatches(createMemoryPersister(), steady, watches).forEach((loaded, i) => expect(loaded).toEqual(watches[i]));
    // Only entries not exact as numbers have a JSON row.
    const rows = [...steady.keys()].filter((k) => k.startsWith("watch|")).map((k) => steady.get(k)!);
    expect(new Set(rows.map((json) => JSON.parse(json)[0]))).toEqual(new Set(["9007199254740993:5", "oops", "12:"]));
    const restarted = new Map<string, string>();
    persistWatches(createMemoryPersister(), restarted, watches.slice(0, 4));
    expect(persistWatches(createMemoryPersister([...restarted]), restarted, watches.slice(4))).toEqual(watches.slice(4));
    expect(loadDetectorMemoryEntries(restarted)).toEqual(loadDetectorMemoryEntries(steady));
  }, 60_000);

  it("reads the JSON rows a version before wrote, then stores them as numbers (an upgrade)", () => {
    const old: [string, string][] = [
      ["watch|f|g|t|0", "[\"100:90\",1736910000000]"],
      ["watch|f|g|t|1", "[null,1736910000000]"],
      ["watch|f|g|t|2", "[\"9007199254740993:5\",1736910000000]"],
    ];
    const loaded = loadDetectorMemoryEntries(old).watch;
    expect(loaded).toEqual({
      "f|g|t|0": { checkpoint: "100:90", dueSince: T0 },
      "f|g|t|1": { checkpoint: null, dueSince: T0 },
      "f|g|t|2": { checkpoint: "9007199254740993:5", dueSince: T0 },
    });
    const store = new Map(old);
    const changes = createMemoryPersister(old).listChanges({ ...createDetectorMemory(), checkpointWatch: new CheckpointWatchState(loaded) }, T0);
    apply(store, changes);
    expect(changes.filter((c) => c.key.startsWith("watch|"))).toEqual([
      { key: "watch|f|g|t|0", value: null },
      { key: "watch|f|g|t|1", value: null },
    ]);
    expect([...store.keys()].sort()).toEqual(["cycle-at", "watches-keys|f|0", "watches|f|0", "watch|f|g|t|2"]);
    expect(loadDetectorMemoryEntries(store).watch).toEqual(loaded);
  });
});
