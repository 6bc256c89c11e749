import { describe, expect, it } from "vitest";
import { createCommittedMarksBuilder, putCommittedMark } from "@/lib/detect/committed-marks";
import { findViewTable } from "@/lib/detect/mark-columns";
import { createDetectorMemory } from "@/lib/detect/memory";
import { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange } from "@/lib/detect/memory-persistence";
import type { CommittedMark, DetectorOutput } from "@/lib/detect/types";
import { makeConnect, makeConnector, makeFlowPartition, makeHistory, makeSnapshot, makeTask, runCycles, T0 } from "./fixtures";

const STUCK = "east->west|orders|2";
const MOVING = "east->west|orders|3";
/** The flow's offset-sync markers as numbers (packed-marks.ts): one chunk row of numbers, one of keys. */
const SYNCS = "syncs|east->west|0";
const SYNC_KEYS = "syncs-keys|east->west|0";
/** MM2_POSITION_MOVED's marks as numbers: the flow's chunk rows of numbers, keys and texts. */
const COMMITTED = "committed-marks|east->west|0";
const COMMITTED_KEYS = "committed-marks-keys|east->west|0";
const COMMITTED_TEXTS = "committed-marks-texts|east->west|0";

/** The numbers of a chunk row (base64 little-endian float64s). */
function readChunkNumbers(value: string): number[] {
  return [...new Float64Array(new Uint8Array(Buffer.from(value, "base64")).buffer)];
}

/** The committed marks a store holds, as loaded. */
function readStoredCommitted(store: Map<string, string>): Record<string, CommittedMark> {
  return loadDetectorMemoryEntries(store).memory.committed;
}

/**
 * Two partitions, a minute apart: orders/2 stuck at 100 while its source grows (a stall mark from
 * the second cycle on), orders/3 copying 100 records a cycle (Connect's committed position one
 * flush behind, one new offset sync a cycle).
 */
function twoPartitionCycles(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const moving = BigInt(1000 + i * 100);
    return {
      snapshot: makeSnapshot({
        cycle: i + 1,
        partitions: [
          makeFlowPartition({ partition: 2, sourceLogEnd: BigInt(200 + i * 100), mm2Position: 100n }),
          makeFlowPartition({ partition: 3, sourceLogEnd: moving, mm2Position: moving, committedPosition: moving - 50n, targetLogEnd: moving }),
        ],
      }),
      history: makeHistory(Array.from({ length: i + 1 }, (_, j): [number, number] => [999 + j * 100, 999 + j * 100]), "orders", 3),
      now: T0 + i * 60_000,
    };
  });
}

/** Applies each cycle's changes to a key-value store, as the pipeline's store does; returns them per cycle. */
function persistAll(outputs: DetectorOutput[], store: Map<string, string>): MemoryEntryChange[][] {
  const persister = createMemoryPersister();
  return outputs.map((output, i) => {
    const changes = persister.listChanges(output.memory, T0 + i * 60_000);
    for (const { key, value } of changes) {
      if (value === null) store.delete(key);
      else store.set(key, value);
    }
    return changes;
  });
}

describe("detector memory persistence", () => {
  it("writes per cycle only the entries that changed, and reads back the memory (marks made this cycle aside)", () => {
    const outputs = runCycles(twoPartitionCycles(3));
    const store = new Map<string, string>();
    const changes = persistAll(outputs, store);
    expect(changes.map((c) => c.map((e) => e.key))).toEqual([
      ["cycle-at", SYNCS, SYNC_KEYS, COMMITTED, COMMITTED_KEYS, COMMITTED_TEXTS],
      // orders/2 stood still for a cycle: its stall mark is stored; orders/3's committed mark only
      // advanced (written again 60 s after its last write, not before), its numbers alone.
      ["cycle-at", SYNCS, `stall|${STUCK}`, COMMITTED],
      // Stuck for 120 s: TASK_STALLED is a level finding of this cycle.
      ["cycle-at", "finding|TASK_STALLED|east->west", SYNCS, COMMITTED],
    ]);
    expect(store.get(`stall|${STUCK}`)).toBe(JSON.stringify({ position: "100", movedAt: T0, logEndAtMove: "200", notRunningMs: 0 }));
    expect(JSON.parse(store.get(COMMITTED_KEYS)!)).toEqual([STUCK, MOVING]);
    // [committed, highest, replacedCommitted, goneSince] per slot, then [topicId, connector].
    expect(readChunkNumbers(store.get(COMMITTED)!)).toEqual([100, 100, NaN, NaN, 1150, 1200, NaN, NaN]);
    expect(JSON.parse(store.get(COMMITTED_TEXTS)!)).toEqual(["id-1", null, "id-1", null]);
    expect(JSON.parse(store.get(SYNC_KEYS)!)).toEqual([MOVING]);
    expect(readChunkNumbers(store.get(SYNCS)!)).toEqual([1199, 1199]);

    const last = outputs[2]!.memory;
    const { [MOVING]: moving, ...stored } = last.positions;
    expect(moving).toEqual({ position: "1200", movedAt: T0 + 120_000, logEndAtMove: "1200", notRunningMs: 0, seenAt: T0 + 120_000 });
    expect(loadDetectorMemoryEntries(store)).toEqual({ memory: { ...last, positions: stored }, watch: {}, watchStored: false, error: null });
  });

  it("writes a committed mark that went down at once, and one that only advanced at most once a minute", () => {
    const cycles = twoPartitionCycles(4);
    // Cycle 3: Connect's offsets of orders/3 moved back by hand to 900 (MM2 had reached 1100).
    cycles[2]!.snapshot.flows[0]!.partitions[1] = { ...cycles[2]!.snapshot.flows[0]!.partitions[1]!, committedPosition: 900n };
    const outputs = runCycles(cycles.map((c, i) => ({ ...c, now: T0 + i * 20_000 })));
    expect(outputs[2]!.findings.filter((f) => f.type === "MM2_POSITION_MOVED").map((f) => [f.evidence.firstAffectedOffset, f.evidence.lastAffectedOffset])).toEqual([["900", "1099"]]);
    const persister = createMemoryPersister();
    const store = new Map<string, string>();
    const written = outputs.map((o, i) => {
      const changes = persister.listChanges(o.memory, T0 + i * 20_000);
      for (const { key, value } of changes) if (value !== null) store.set(key, value);
      return [changes.some((c) => c.key === COMMITTED), readStoredCommitted(store)[MOVING]];
    });
    expect(written).toEqual([
      [true, { committed: "950", highest: "1000", topicId: "id-1" }],
      // 1050/1100: MM2 advanced, 20 s after the last write.
      [false, { committed: "950", highest: "1000", topicId: "id-1" }],
      [true, { committed: "900", highest: "1200", topicId: "id-1" }],
      // 1250/1300: advanced again, 20 s after the last write.
      [false, { committed: "900", highest: "1200", topicId: "id-1" }],
    ]);
  });

  it("deletes the entries of partitions that left the flow", () => {
    const outputs = runCycles(twoPartitionCycles(2));
    const persister = createMemoryPersister();
    const store = new Map(persister.listChanges(outputs[0]!.memory, T0).map((c) => [c.key, c.value!]));
    const gone = { ...outputs[1]!.memory, committed: {}, syncMarkers: {} };
    const changes = persister.listChanges(gone, T0 + 60_000);
    expect(changes.filter((c) => c.value === null)).toEqual([]);
    // The sync marker's and the committed marks' slots are rewritten as holding nothing.
    for (const { key, value } of changes) if (value !== null) store.set(key, value);
    expect(changes.map((c) => c.key)).toEqual(["cycle-at", SYNCS, `stall|${STUCK}`, COMMITTED]);
    expect(loadDetectorMemoryEntries(store).memory.syncMarkers).toEqual({});
    expect(readStoredCommitted(store)).toEqual({});
  });

  it("lists a detector's sections from the keys it touched: the same changes as walking every key", () => {
    const cycles = twoPartitionCycles(6);
    // Cycle 4: the connector is seen paused; cycle 5: orders/2 copies again; cycle 6: orders/3 left the flow
    // (its offset syncs are still read).
    cycles[3]!.snapshot.connect = [makeConnect([makeConnector({ state: "PAUSED", tasks: [makeTask(0, { state: "PAUSED" })] })])];
    const [, moving] = cycles[4]!.snapshot.flows[0]!.partitions;
    cycles[4]!.snapshot.flows[0]!.partitions = [makeFlowPartition({ partition: 2, sourceLogEnd: 600n, mm2Position: 500n }), moving!];
    cycles[5]!.snapshot.flows[0]!.partitions = [makeFlowPartition({ partition: 2, sourceLogEnd: 700n, mm2Position: 700n })];
    const outputs = runCycles(cycles);
    const touched = createMemoryPersister();
    const walked = createMemoryPersister();
    const changes = outputs.map((o, i) => {
      // Copies of the sections: not made by a detector, so listed by walking every key.
      const copy = { ...o.memory, syncMarkers: { ...o.memory.syncMarkers }, positions: { ...o.memory.positions }, committed: { ...o.memory.committed } };
      const listed = touched.listChanges(o.memory, T0 + i * 60_000);
      expect(walked.listChanges(copy, T0 + i * 60_000)).toEqual(listed);
      return listed.map((c) => [c.key, c.value === null ? null : c.key.startsWith("stall|") ? c.value : "json"]);
    });
    // orders/2's stall mark, stored in cycle 2, is advanced every cycle: written again only when the pause added to
    // its not-running time, and deleted when it moved.
    const paused = JSON.stringify({ position: "100", movedAt: T0, logEndAtMove: "200", notRunningMs: 60_000 });
    expect(changes.slice(3)).toEqual([
      [["cycle-at", "json"], ["finding|TASK_STALLED|east->west", null], [SYNCS, "json"], [`stall|${STUCK}`, paused], [COMMITTED, "json"]],
      [["cycle-at", "json"], [SYNCS, "json"], [`stall|${STUCK}`, null], [COMMITTED, "json"]],
      // orders/3 left the flow: its committed mark is kept, marked gone (a recreated topic is judged against it).
      [["cycle-at", "json"], [COMMITTED, "json"]],
    ]);
    expect(outputs[5]!.memory.committed[MOVING]?.goneSince).toBe(T0 + 5 * 60_000);
  });

  it("compares a detector's marks by their numbers as their JSON compares: rows read from the store, a compacted table", () => {
    const mark = (committed: number, highest: number) => ({ committed, highest, topicId: "id-1", connector: undefined, replacedCommitted: Number.NaN, goneSince: Number.NaN });
    const key = (p: number) => `f|a|${p}`;
    // Cycle by cycle (20 s apart), the partitions and their marks: 5,000 partitions copying, then only ten left (the
    // table is compacted), one of them moved back, then the ten advance a minute after their last write.
    const cycles: { now: number; marks: [number, ReturnType<typeof mark>][] }[] = [
      { now: T0, marks: Array.from({ length: 5000 }, (_, p) => [p, mark(100, 120)]) },
      { now: T0 + 20_000, marks: Array.from({ length: 5000 }, (_, p) => [p, mark(110, 130)]) },
      { now: T0 + 40_000, marks: Array.from({ length: 10 }, (_, p) => [p, p === 3 ? mark(50, 130) : mark(120, 140)]) },
      { now: T0 + 100_000, marks: Array.from({ length: 10 }, (_, p) => [p, mark(130, 150)]) },
    ];
    // Read from the store: f|a|0 as this version writes it, f|a|1 the same mark written with its fields in another
    // order, and a partition no longer in the memory.
    const stored: [string, string][] = [
      [`committed|${key(0)}`, JSON.stringify({ committed: "100", highest: "120", topicId: "id-1" })],
      [`committed|${key(1)}`, JSON.stringify({ highest: "120", committed: "100", topicId: "id-1" })],
      ["committed|f|x|9", JSON.stringify({ committed: "1", highest: "1", topicId: null })],
    ];
    const byNumbers = createMemoryPersister(stored);
    const byText = createMemoryPersister(stored);
    const store = new Map(stored);
    let section: Record<string, CommittedMark> = {};
    const listed = cycles.map(({ now, marks }) => {
      const next = createCommittedMarksBuilder(section, now);
      for (const [p, values] of marks) putCommittedMark(next, next.slotOf(key(p)), true, values);
      const before = section;
      section = next.finish();
      if (marks.length === 10) expect(findViewTable(section)!.table.index === findViewTable(before)!.table.index).toBe(now !== cycles[2]!.now);
      const changes = byNumbers.listChanges({ ...createDetectorMemory(), committed: section }, now);
      // A copy is a plain record: compared entry by entry by its JSON, as before the columns.
      expect(byText.listChanges({ ...createDetectorMemory(), committed: { ...section } }, now)).toEqual(changes);
      const stored0 = readStoredCommitted(store);
      for (const { key: k, value } of changes) {
        if (value === null) store.delete(k);
        else store.set(k, value);
      }
      // The marks whose stored form changed (written, or deleted: null).
      const after = readStoredCommitted(store);
      const changed = [...new Set([...Object.keys(stored0), ...Object.keys(after)])].filter((k) => JSON.stringify(stored0[k]) !== JSON.stringify(after[k]));
      return Object.fromEntries(changed.map((k) => [k, after[k] === undefined ? null : [after[k].committed, after[k].highest]]));
    });
    const stored100 = Object.fromEntries(Array.from({ length: 4998 }, (_, p) => [key(p + 2), ["100", "120"]]));
    // The rows read from the store are upgraded (deleted: their marks are in the chunk rows).
    expect([...store.keys()].filter((k) => k.startsWith("committed|"))).toEqual([]);
    // f|a|0 and f|a|1 read from the store are stored as they were (f|a|1's fields in another order: the same mark).
    expect(listed[0]).toEqual({ ...stored100, "f|x|9": null });
    // Only the mark read from the store (written at 0) is written again within the minute.
    expect(listed[1]).toEqual({ [key(0)]: ["110", "130"] });
    const left = Object.keys(listed[2]!).filter((k) => listed[2]![k] === null);
    expect(Object.entries(listed[2]!).filter(([, v]) => v !== null)).toEqual([[key(3), ["50", "130"]]]);
    expect(left.length).toBe(4990);
    // A minute after their last write (f|a|3's in the cycle before, the others' in the first).
    expect(listed[3]).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, p) => [key(p), ["130", "150"]])));
  });

  it("starts from an empty memory, and says why, when a stored entry is not JSON", () => {
    expect(loadDetectorMemoryEntries([["cycle-at", "12"], [`sync|${MOVING}`, "{oops"]])).toEqual({
      memory: createDetectorMemory(),
      watch: {},
      watchStored: false,
      error: expect.stringContaining(`stored entry sync|${MOVING} is not JSON`),
    });
  });
});
