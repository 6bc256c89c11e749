import { describe, expect, it } from "vitest";
import { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange, type MemoryPersister } from "@/lib/detect/memory-persistence";
import type { FlowPartition } from "@/lib/collector/types";
import type { DetectorMemory } from "@/lib/detect/types";
import { makeFlowPartition, makeHistory, makeSnapshot, runCycles, T0, type Cycle } from "./fixtures";

const cycleMs = 20_000;

/**
 * Six partitions of `orders` over 9 cycles, 20 s apart: p0 copies steadily; p1's committed position is moved back by
 * hand in cycle 5; p2's moves ahead of MM2 in cycle 2 (a pending forward move) until MM2 catches up in cycle 6; p3's
 * topic is recreated in cycle 4; p4 leaves the flow from cycle 3 on (its mark kept, gone); p5 copies at offsets
 * beyond 2^40.
 */
function makePartition(i: number, c: number): FlowPartition {
  const end = BigInt(1000 + 100 * c) + (i === 5 ? 2n ** 40n : 0n);
  const base = { partition: i, sourceLogEnd: end, mm2Position: end, committedPosition: end - 50n, targetLogEnd: end };
  if (i === 1 && c === 5) return makeFlowPartition({ ...base, committedPosition: 700n });
  if (i === 2 && c >= 2 && c < 6) return makeFlowPartition({ ...base, committedPosition: 5000n });
  if (i === 3 && c >= 4) {
    const start = BigInt(50 * (c - 3));
    return makeFlowPartition({ ...base, sourceTopicId: "id-new", sourceLogEnd: start, mm2Position: start, committedPosition: start, targetLogEnd: start });
  }
  return makeFlowPartition(base);
}

function makeCycles(count: number): Cycle[] {
  return Array.from({ length: count }, (_, k) => {
    const c = k + 1;
    const partitions = [0, 1, 2, 3, 4, 5].filter((i) => !(i === 4 && c >= 3)).map((i) => makePartition(i, c));
    return { snapshot: makeSnapshot({ cycle: c, takenAt: T0 + k * cycleMs, partitions }), history: makeHistory([]), now: T0 + k * cycleMs };
  });
}

function apply(store: Map<string, string>, changes: readonly MemoryEntryChange[]): void {
  for (const { key, value } of changes) {
    if (value === null) store.delete(key);
    else store.set(key, value);
  }
}

/** The store as the versions before kept it: every committed mark a JSON row of its own, no chunk rows of them. */
function toOldForm(store: Map<string, string>): Map<string, string> {
  const old = new Map([...store].filter(([key]) => !key.startsWith("committed-marks")));
  for (const [key, mark] of Object.entries(loadDetectorMemoryEntries(store).memory.committed)) old.set(`committed|${key}`, JSON.stringify(mark));
  return old;
}

/** A Gapwatch started on `store`: the memory it reads and the persister that knows what the store holds. */
function restart(store: Map<string, string>): { memory: DetectorMemory; persister: MemoryPersister } {
  const loaded = loadDetectorMemoryEntries(store);
  expect(loaded.error).toBeNull();
  return { memory: loaded.memory, persister: createMemoryPersister(store) };
}

/** Runs `cycles` from a restart on `store`, persisting each into it; the findings and stored marks of each cycle. */
function runFrom(store: Map<string, string>, cycles: Cycle[]) {
  const { memory, persister } = restart(store);
  return runCycles(cycles, undefined, memory).map((output, i) => {
    apply(store, persister.listChanges(output.memory, cycles[i]!.now!));
    return { findings: output.findings, memory: output.memory, stored: loadDetectorMemoryEntries(store).memory };
  });
}

describe("MM2_POSITION_MOVED's marks stored as numbers, across a restart on rows of the versions before", () => {
  it("reads the old JSON rows, stores them as numbers on the first cycle, and finds what a restart on numbers finds", () => {
    const cycles = makeCycles(9);
    const store = new Map<string, string>();
    const persister = createMemoryPersister();
    runCycles(cycles.slice(0, 3)).forEach((output, i) => apply(store, persister.listChanges(output.memory, cycles[i]!.now!)));
    const old = toOldForm(store);
    expect([...old.keys()].filter((key) => key.startsWith("committed|")).length).toBe(6);
    // The marks read the same from either form.
    expect(restart(old).memory).toEqual(restart(store).memory);

    const fromNumbers = runFrom(store, cycles.slice(3, 6));
    const fromRows = runFrom(old, cycles.slice(3, 6));
    expect(fromRows).toEqual(fromNumbers);
    // Upgraded by the first cycle's changes: no JSON row of a mark is left, and both stores hold the same rows.
    expect([...old.keys()].filter((key) => key.startsWith("committed|"))).toEqual([]);
    expect(new Map([...old].sort())).toEqual(new Map([...store].sort()));
    // Restarted again, on the upgraded store: the same answers still.
    expect(runFrom(old, cycles.slice(6))).toEqual(runFrom(store, cycles.slice(6)));

    // The scenario reaches the paths it is about.
    const moved = fromNumbers.flatMap((r) => r.findings.filter((f) => f.type === "MM2_POSITION_MOVED" || f.type === "TOPIC_RESET").map((f) => f.key));
    expect(moved).toEqual(expect.arrayContaining([expect.stringContaining("MM2_POSITION_MOVED|east->west|orders|1"), expect.stringContaining("TOPIC_RESET|east->west|orders|3")]));
    const marks = fromNumbers[2]!.stored.committed;
    expect(marks["east->west|orders|4"]?.goneSince).toBeDefined();
    expect(marks["east->west|orders|3"]).toMatchObject({ topicId: "id-new", replacedCommitted: "50" });
    expect(Number(marks["east->west|orders|5"]?.committed)).toBeGreaterThan(2 ** 40);
  });

  it("keeps as a JSON row a mark whose offsets are not exact as numbers, and reads it back", () => {
    const mark = { committed: "9007199254740993", highest: "9007199254740993", topicId: "id-1" };
    const exact = { committed: "100", highest: "120", topicId: null, connector: "c-2", replacedCommitted: "90", goneSince: T0 };
    const old = new Map([
      ["cycle-at", String(T0)],
      ["committed|f|a|0", JSON.stringify(mark)],
      ["committed|f|a|1", JSON.stringify(exact)],
    ]);
    const { memory, persister } = restart(old);
    // Read back whole, the connector of a flow split over several source connectors included.
    expect(memory.committed).toEqual({ "f|a|0": mark, "f|a|1": exact });
    apply(old, persister.listChanges(memory, T0 + cycleMs));
    expect([...old.keys()].filter((key) => key.startsWith("committed|"))).toEqual(["committed|f|a|0"]);
    expect(restart(old).memory.committed).toEqual(memory.committed);
  });
});
