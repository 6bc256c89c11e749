import { describe, expect, it } from "vitest";
import { flowPartitionKey, type FlowPartition, type Snapshot } from "@/lib/collector/types";
import { createMemoryPersister, loadDetectorMemoryEntries } from "@/lib/detect/memory-persistence";
import { FindingType } from "@/lib/detect/types";
import { FLOW, findingsOf, makeConnect, makeConnector, makeFlowPartition, makeSnapshot, runCycles } from "./fixtures";

/** `orders`/2 of a flow split over mm2-a and mm2-b, copied by mm2-a up to 5000. */
const byA = makeFlowPartition({
  sourceConnector: "mm2-a", sourceLogEnd: 6000n, mm2Position: 5000n, committedPosition: 5000n, targetLogEnd: 5000n,
  latestSync: { upstream: 4900n, downstream: 4900n },
});

function splitSnapshot(cycle: number, partition: FlowPartition): Snapshot {
  const snapshot = makeSnapshot({ cycle, partitions: [partition], connect: [makeConnect([makeConnector({ name: "mm2-a" }), makeConnector({ name: "mm2-b" })])] });
  return { ...snapshot, flows: snapshot.flows.map((f) => ({ ...f, connectors: { ...f.connectors, source: "mm2-a", sources: ["mm2-a", "mm2-b"] } })) };
}

/** The detectors' memory after `cycles`, stored as the persister writes it and read back as a restarted Gapwatch does. */
function storeAndReload(snapshots: Snapshot[]) {
  const store = new Map<string, string>();
  const persister = createMemoryPersister();
  for (const [i, output] of runCycles(snapshots.map((snapshot) => ({ snapshot }))).entries()) {
    for (const { key, value } of persister.listChanges(output.memory, snapshots[i]!.takenAt)) {
      if (value === null) store.delete(key);
      else store.set(key, value);
    }
  }
  const loaded = loadDetectorMemoryEntries(store);
  expect(loaded.error).toBeNull();
  return loaded.memory;
}

describe("MM2_POSITION_MOVED on a flow split over several source connectors, across a restart", () => {
  it("keeps the mark's connector, so a move made while Gapwatch was down is reported on its first cycle", () => {
    const memory = storeAndReload([splitSnapshot(1, byA)]);
    expect(memory.committed[flowPartitionKey(FLOW, "orders", 2)]).toMatchObject({ committed: "5000", connector: "mm2-a" });
    // While Gapwatch was down, mm2-a's offsets were moved back by hand: the first cycle after the restart sees it.
    const patched = { ...byA, committedPosition: 4700n };
    const [first] = runCycles([{ snapshot: splitSnapshot(3, patched) }], undefined, memory);
    expect(findingsOf(first!, FindingType.MM2_POSITION_MOVED).map((f) => [f.evidence.direction, f.evidence.firstAffectedOffset, f.evidence.lastAffectedOffset])).toEqual([
      ["back", "4700", "4999"],
    ]);
  });

  it("still starts a new mark when the other connector copies the partition after the restart", () => {
    const memory = storeAndReload([splitSnapshot(1, byA)]);
    const byB = { ...byA, sourceConnector: "mm2-b", committedPosition: 4700n };
    const [first] = runCycles([{ snapshot: splitSnapshot(3, byB) }], undefined, memory);
    expect(findingsOf(first!, FindingType.MM2_POSITION_MOVED)).toEqual([]);
    expect(first!.memory.committed[flowPartitionKey(FLOW, "orders", 2)]).toMatchObject({ committed: "4700", connector: "mm2-b" });
  });
});
