/**
 * The cycle pipeline reads a flow buildFlow made through its columns and rows (lib/collector/flow-rows.ts): over
 * cycles of the synthetic world (the bench's, scripts/bench/synthetic-world.ts), CyclePipeline.processCycle makes no
 * flow's partitions array. Every rule, the translation, the alerts, the metrics and the store writes run as in
 * production; a reader that needs one partition's object (evidence for a finding, a mark judged off the routine path)
 * makes that one (readFlowPartition).
 */
import { describe, expect, it, vi } from "vitest";
import { buildFlow } from "@/lib/collector/flow-builder";
import { countPartitionArraysMade, findFlowRows, FlowRows } from "@/lib/collector/flow-rows";
import type { Snapshot } from "@/lib/collector/types";
import { FlowTranslator } from "@/lib/pipeline/flow-translator";
import { readSnapshotFixture } from "@/scripts/bench/snapshot-fixture";
import { createSyntheticWorld, cycleMs } from "@/scripts/bench/synthetic-world";
import { runSyntheticPipeline } from "./synthetic-pipeline";

describe("the cycle pipeline over flows buildFlow made", () => {
  it("makes no flow's partitions array in six cycles of 2,000 partitions (lagging, stalled, syncing)", async () => {
    let alerted = 0;
    await runSyntheticPipeline(6, async ({ cycle, current, process }) => {
      expect(current.flows.every((flow) => findFlowRows(flow) !== undefined)).toBe(true);
      const made = countPartitionArraysMade();
      const model = await process();
      expect(countPartitionArraysMade(), `cycle ${cycle}`).toBe(made);
      alerted = Math.max(alerted, model.alerts.length);
    });
    // The cycles judged something: the readers ran over lagging partitions and fired (REPLICATION_LAG at least).
    expect(alerted).toBeGreaterThan(0);
  }, 120_000);

  it("translates a flow's numeric rows without making a partition object; a row made later shows its partition", () => {
    const fixture = readSnapshotFixture();
    const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, "east->west", 2_000);
    const translator = new FlowTranslator();
    const made = vi.spyOn(FlowRows.prototype, "makePartition");
    let previous: Snapshot | null = null;
    try {
      for (let c = 1; c <= 4; c++) {
        const now = world.base.takenAt + c * cycleMs;
        const { clusters, readings } = world.advance(c, now);
        const before = previous?.flows[0];
        const flow = buildFlow(world.def, clusters[0], clusters[1], readings, now, before && previous ? { flow: before, takenAt: previous.takenAt } : null);
        const current: Snapshot = { ...world.base, cycle: c, takenAt: now, durationMs: 0, clusters, flows: [flow], transactionLedgers: {} };
        made.mockClear();
        const ft = translator.translateCycle(current, { offsetSyncs: world.syncs }).get(flow.id)!;
        // Only a row held as an object (here: one MM2 does not translate) reads its partition's object.
        expect(ft.totals.translated, `cycle ${c}`).toBeGreaterThan(1_000);
        expect(made.mock.calls.length, `cycle ${c}`).toBeLessThanOrEqual(ft.totals.untranslatable);
        const byName = new Map(flow.partitions.map((fp) => [`${fp.topic}/${fp.partition}`, fp]));
        for (const row of ft.groups.flatMap((g) => g.partitions)) {
          const fp = byName.get(`${row.topic}/${row.partition}`)!;
          expect([row.topic, row.partition, row.targetTopic, row.sourceLogEnd]).toEqual([fp.topic, fp.partition, fp.targetTopic, fp.sourceLogEnd]);
        }
        previous = current;
      }
    } finally {
      made.mockRestore();
    }
  }, 120_000);
});
