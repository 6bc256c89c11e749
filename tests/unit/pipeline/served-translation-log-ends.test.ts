/**
 * A translation row's source log end and group lag written from their columns (TranslationRows.writeRow) as numbers,
 * no bigint made, encode byte for byte as the rows made as objects: log ends up to 2^53 − 1, null, and ordinary ones,
 * over the random translation world's cycles; a log end beyond (never exact as a number) stops the flow's translation.
 */
import { describe, expect, it } from "vitest";
import { OffsetBeyondExactError } from "@/lib/collector/flow-columns";
import type { Snapshot } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { FlowTranslator } from "@/lib/pipeline/flow-translator";
import { serveTranslationRows } from "@/lib/pipeline/served-translations";
import { FLOW } from "../translation/fixtures";
import { createWorld } from "./translation-world";

const safe = 2n ** 53n - 1n;
const logEnds = [safe, null, safe - 7n, 1_234n, safe - 1n];

/** The world's snapshot of cycle `c`, each partition's log end one of `ends` (by position, shifted each cycle). */
function withLogEnds(snapshot: Snapshot, c: number, ends: readonly (bigint | null)[]): Snapshot {
  const flows = snapshot.flows.map((flow) => ({
    ...flow,
    partitions: flow.partitions.map((p, i) => ({ ...p, sourceLogEnd: ends[(i + c) % ends.length]! })),
  }));
  return { ...snapshot, flows };
}

describe("a translation row's source log end written as a number", () => {
  it.each([1, 2, 3])("encodes as the rows made as objects up to 2^53 − 1 (seed %i)", (seed) => {
    const world = createWorld(seed);
    const translator = new FlowTranslator();
    let rows = 0;
    for (let c = 1; c <= 20; c++) {
      const translations = translator.translateCycle(withLogEnds(world.advance(c), c, logEnds), { offsetSyncs: world.history });
      const served = encodeColumnar({ translations: serveTranslationRows(translations) });
      expect(served.equals(encodeColumnar({ translations })), `cycle ${c}`).toBe(true);
      expect((decodeColumnar(served) as { translations: unknown }).translations).toEqual(translations);
      rows += translations.get(FLOW)!.groups.reduce((n, g) => n + g.partitions.filter((p) => p.sourceLogEnd === safe).length, 0);
    }
    // Rows at the largest exact log end were written (their group lag near 2^53 too).
    expect(rows).toBeGreaterThan(0);
  });

  it("has no log end beyond 2^53 to write: such a flow is not translated", () => {
    const world = createWorld(4);
    const translator = new FlowTranslator();
    const snapshot = withLogEnds(world.advance(1), 1, [safe + 1n]);
    expect(() => translator.translateCycle(snapshot, { offsetSyncs: world.history })).toThrow(OffsetBeyondExactError);
  });
});
