import { describe, expect, it } from "vitest";
import { flowPartitionKey } from "@/lib/collector/types";
import { CheckpointIndex, findColumnGroupRows, type FlowTranslation, SyncModelCache, translateFlow } from "@/lib/translation";
import { ReusedRowsError } from "@/lib/translation/translation-rows";
import { FLOW, makeFlow, makeGroup, steadySyncs, T0 } from "./fixtures";

/** Translates "app" on orders/0..3 once a cycle as the pipeline does: one cache reusing row columns, one index. */
function createCycles() {
  const cache = new SyncModelCache({}, true);
  const checkpointIndex = new CheckpointIndex();
  const history = new Map([0, 1, 2, 3].map((p) => [flowPartitionKey(FLOW, "orders", p), steadySyncs(100, 1000)]));
  return (c: number): FlowTranslation => {
    const committed = 900n + 10n * BigInt(c);
    const group = makeGroup("app", Object.fromEntries([0, 1, 2, 3].map((p) => [`orders/${p}`, committed])));
    return translateFlow({ flow: makeFlow(), sourceGroups: [group], syncHistory: history, now: T0 + c * 10_000, cache, checkpointIndex });
  };
}

describe("a translation's rows once a later cycle reused their columns (the pipeline reuses them two cycles later)", () => {
  it("read the cycle after: still its own numbers; two cycles after: an error, never another cycle's numbers", () => {
    const translate = createCycles();
    const first = translate(1);
    const rows = findColumnGroupRows(first.groups[0]!)!;
    expect(rows).toBeDefined();
    expect(rows.row(0).committed).toBe(910n);
    translate(2);
    expect(rows.row(1).committed).toBe(910n);
    translate(3);
    expect(() => rows.row(0)).toThrow(ReusedRowsError);
    expect(() => rows.isCheckpointOwed(0)).toThrow(/reused by a later cycle/);
    // The group's rows were never made: making them now would read the reused columns.
    expect(() => first.groups[0]!.partitions).toThrow(ReusedRowsError);
  });

  it("a group whose rows were made before the reuse keeps them", () => {
    const translate = createCycles();
    const first = translate(1);
    const made = first.groups[0]!.partitions;
    translate(2);
    translate(3);
    expect(first.groups[0]!.partitions).toBe(made);
    expect(made.map((r) => r.committed)).toEqual([910n, 910n, 910n, 910n]);
  });
});
