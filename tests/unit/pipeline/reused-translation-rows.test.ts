import { afterEach, describe, expect, it, vi } from "vitest";
import { FlowTranslator, listTranslationSamples } from "@/lib/pipeline/flow-translator";
import { type FlowTranslation, readGroupRows, type RowSample, translateSnapshotFlow } from "@/lib/translation";
import { FlowRowsState } from "@/lib/translation/flow-rows";
import type { TranslationRows } from "@/lib/translation/translation-rows";
import { FLOW, readSampleColumns } from "../translation/fixtures";
import { createWorld } from "./translation-world";

/**
 * FlowTranslator reuses a flow's row columns two cycles later (FlowRowsState.takeRows). Over random cycles whose groups
 * grow, shrink and change partitions (so the columns are reused, or too small or too large and made anew), and whose
 * rows switch between numbers and objects (a partition the flow does not replicate), each cycle's translation must be
 * the one a translation from scratch gives, and the last cycle's must still read as it did once the next is made.
 */
const cycles = 40;

/** What the detectors and the store read of a translation's rows, through the columns (no row made). */
function readColumns(ft: FlowTranslation) {
  const groups = ft.groups.map((g) => {
    const rows = readGroupRows(g);
    const each = Array.from({ length: rows.length }, (_, i) => ({
      topic: rows.topic(i),
      partition: rows.partition(i),
      checkpoint: rows.checkpoint(i),
      owed: rows.isCheckpointOwed(i),
      skipping: rows.isSkipping(i),
      upstream: rows.checkpointUpstream(i),
      downstream: rows.checkpointDownstream(i),
      readAt: rows.checkpointReadAt(i),
      sample: rows.sample(i, g.group),
    }));
    return { group: g.group, totals: g.totals, hasCheckpoint: rows.hasCheckpoint(), each };
  });
  const samples: RowSample[] = readSampleColumns(listTranslationSamples(ft));
  return { groups, samples, totals: ft.totals };
}

describe("the row columns FlowTranslator reuses two cycles later", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([1, 2, 3])("give, cycle after cycle, the translation from scratch, and leave the last cycle's intact (seed %i)", (seed) => {
    const taken: TranslationRows[] = [];
    const takeRows = FlowRowsState.prototype.takeRows;
    vi.spyOn(FlowRowsState.prototype, "takeRows").mockImplementation(function (this: FlowRowsState, ...args) {
      const rows = takeRows.apply(this, args);
      if (args[2]) taken.push(rows);
      return rows;
    });
    const world = createWorld(seed);
    const translator = new FlowTranslator();
    let last: { translation: FlowTranslation; expected: ReturnType<typeof readColumns> } | null = null;
    for (let c = 1; c <= cycles; c++) {
      const snapshot = world.advance(c);
      const translation = translator.translateCycle(snapshot, { offsetSyncs: world.history }).get(FLOW)!;
      // The cycle before, published until now, reads as it did when it was made.
      if (last !== null) expect(readColumns(last.translation)).toEqual(last.expected);
      const scratch = translateSnapshotFlow(snapshot, snapshot.flows[0]!, world.history, snapshot.takenAt);
      const expected = readColumns(scratch);
      expect(readColumns(translation)).toEqual(expected);
      expect(translation).toEqual(scratch);
      last = { translation, expected };
    }
    // FlowTranslator's translations were made in the columns of two cycles before, except where they did not fit.
    const reused = taken.filter((rows, i) => i >= 2 && rows === taken[i - 2]).length;
    expect(taken).toHaveLength(cycles);
    expect(reused).toBeGreaterThan(cycles / 2);
    expect(reused).toBeLessThan(cycles - 2);
  });
});
