/**
 * A translation's rows written from their columns a column at a time (served-translations.ts,
 * numeric-row-columns.ts) encode byte for byte as the rows made as objects, and decode to the same translation: over
 * the random translation world's cycles (rows reused two cycles later, rows held as objects, checkpoints, brackets),
 * among groups whose rows were made already, empty groups and plain ones, and over the synthetic world's cycles
 * through the whole pipeline and publication.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { listSyncHistories } from "@/lib/collector/sync-history";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { FlowTranslator } from "@/lib/pipeline/flow-translator";
import { decodeReadModel, encodeReadModel } from "@/lib/pipeline/published-read-models";
import { trimReadModel } from "@/lib/pipeline/served-read-model";
import { serveTranslationRows } from "@/lib/pipeline/served-translations";
import type { GroupTranslation } from "@/lib/translation";
import { ColumnGroupRows } from "@/lib/translation/translation-rows";
import { createRandom } from "../seeded-random";
import { FLOW } from "../translation/fixtures";
import { createWorld } from "./translation-world";
import { runSyntheticPipeline } from "./synthetic-pipeline";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a translation's rows published from their columns", () => {
  it.each([1, 2, 3, 4])("encode as the rows made as objects, cycle after cycle of the random world (seed %i)", (seed) => {
    const world = createWorld(seed);
    const translator = new FlowTranslator();
    for (let c = 1; c <= 40; c++) {
      const translations = translator.translateCycle(world.advance(c), { offsetSyncs: world.history });
      const served = serveTranslationRows(translations);
      const groups = (served.get(FLOW) as { groups: unknown[] }).groups;
      // More than 8 groups: their rows go as one column of every group's rows, each written from its columns.
      const servedColumn = encodeColumnar({ groups: [...groups, ...groups, ...groups] });
      const servedMap = encodeColumnar({ translations: served });
      const made = translations.get(FLOW)!.groups;
      expect(servedColumn.equals(encodeColumnar({ groups: [...made, ...made, ...made] })), `cycle ${c}`).toBe(true);
      expect(servedMap.equals(encodeColumnar({ translations })), `cycle ${c}`).toBe(true);
      expect((decodeColumnar(servedMap) as { translations: unknown }).translations).toEqual(translations);
    }
  });

  it.each([1, 2, 3])(
    "encode as the rows made as objects among groups made already, empty and plain ones, many of them (seed %i)",
    (seed) => {
      const world = createWorld(10 + seed);
      const random = createRandom(seed);
      const translator = new FlowTranslator();
      const seen = { objectRows: 0, checkpoints: 0, noCheckpoint: 0, ideals: new Set<string>(), skips: new Set<string>() };
      for (let c = 1; c <= 40; c++) {
        const translations = translator.translateCycle(world.advance(c), { offsetSyncs: world.history });
        const groups = translations.get(FLOW)!.groups;
        // Some groups' rows made before the publication (a page read them): written as the objects they are.
        for (const group of groups) if (random() < 0.2) void group.partitions;
        const served = (serveTranslationRows(translations).get(FLOW) as { groups: Record<string, unknown>[] }).groups;
        const plain = (group: GroupTranslation) => ({ ...group, partitions: [...group.partitions] });
        const empty = (group: GroupTranslation) => ({ ...group, partitions: [] });
        const mix: unknown[] = [];
        const made: unknown[] = [];
        for (let i = 0; i < 3; i++) {
          served.forEach((group, g) => {
            const pick = random();
            if (pick < 0.1) {
              mix.push(plain(groups[g]!));
              made.push(plain(groups[g]!));
            } else if (pick < 0.2) {
              mix.push(empty(groups[g]!));
              made.push(empty(groups[g]!));
            }
            mix.push(group);
            made.push(groups[g]!);
          });
        }
        const encoded = encodeColumnar({ groups: mix });
        expect(encoded.equals(encodeColumnar({ groups: made })), `cycle ${c}`).toBe(true);
        for (const group of groups) {
          for (const row of group.partitions) {
            if (row.translation.kind !== "translated") seen.objectRows++;
            if (row.checkpoint === null) seen.noCheckpoint++;
            else seen.checkpoints++;
            seen.ideals.add(`${row.ideal.kind}:${"basis" in row.ideal ? row.ideal.basis : row.ideal.reason}`);
            for (const estimate of [row.reread, row.checkpointReread, row.failoverReread]) if (estimate) seen.skips.add(estimate.skip);
          }
        }
      }
      // The world wrote what the test means to compare: rows held as objects, rows with and without a checkpoint,
      // exact and bracketed ideals, estimates of every kind.
      expect(seen.objectRows).toBeGreaterThan(0);
      expect(seen.checkpoints).toBeGreaterThan(0);
      expect(seen.noCheckpoint).toBeGreaterThan(0);
      expect([...seen.ideals].some((i) => i.startsWith("exact"))).toBe(true);
      expect([...seen.ideals].some((i) => i.startsWith("bracket"))).toBe(true);
      expect(seen.skips.size).toBeGreaterThan(1);
    },
  );

  it("publish the synthetic world's cycles as the model made as objects; no group's rows made in a cycle or its publication", async () => {
    const listRows = vi.spyOn(ColumnGroupRows.prototype, "listRows");
    await runSyntheticPipeline(4, async ({ cycle, process }) => {
      listRows.mockClear();
      const model = await process();
      const published = encodeReadModel(model);
      expect(listRows, `cycle ${cycle}`).not.toHaveBeenCalled();
      const trimmed = trimReadModel(model);
      const made = encodeColumnar({ ...trimmed, history: { offsetSyncs: new Map(listSyncHistories(trimmed.history.offsetSyncs)) } });
      expect(published.equals(made), `cycle ${cycle}`).toBe(true);
      expect((await decodeReadModel(published)).translations).toEqual(model.translations);
    });
  }, 120_000);
});
