/**
 * What the detectors keep alive between cycles: a cycle reads the previous snapshot and the current one, and once
 * the caller drops the previous one nothing of the detectors' may hold it (at 100,000 partitions it and its
 * indexes were 58 MiB of the pipeline's heap between cycles). Needs V8's gc(), exposed here for this file.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { makeFlowPartition, makeSnapshot, runCycles } from "./fixtures";

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

/** Cycles 1–3 of one partition retention overtakes in cycle 3; a weak reference to each snapshot, and the outputs. */
function runWeaklyHeld(): { refs: WeakRef<Snapshot>[]; last: Snapshot; findings: string[][] } {
  const snapshots = [1, 2, 3].map((cycle) =>
    makeSnapshot({
      cycle,
      partitions: [
        makeFlowPartition({ sourceLogStart: cycle === 3 ? 1150n : 0n, sourceLogEnd: 1200n, mm2Position: 1100n, committedPosition: 1100n }),
      ],
    }),
  );
  const outputs = runCycles(snapshots.map((snapshot) => ({ snapshot })));
  const findings = outputs.map((o) => o.findings.map((f) => f.key));
  return { refs: snapshots.map((s) => new WeakRef(s)), last: snapshots[2]!, findings };
}

describe("the detectors' snapshot indexes", () => {
  it("keep only the latest snapshot alive after a cycle: the one before is collected once the caller drops it", async () => {
    const { refs, last, findings } = runWeaklyHeld();
    expect(findings).toEqual([[], [], ["DATA_LOSS|east->west|orders|2|1100"]]);
    // A WeakRef's target stays alive until the job that made it ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, false]);
    expect(refs[2]!.deref()).toBe(last);
  });
});
