import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { DetectorMemory, Finding } from "@/lib/detect";
import { translationRule } from "@/lib/detect/translation-rule";
import type { CheckpointWatch } from "@/lib/detect/translation-detectors";
import { RuleMemoryKeeper } from "@/lib/pipeline/rule-memory";
import { createTempSqliteStores } from "./temp-sqlite-stores";

/**
 * What the release before the rule engine (main at 94ef88c) stored, made by scripts it ran over the soak's recording
 * (/work/replay/soak.jsonl, config soak.config.yaml) through its CyclePipeline on SQLite: the detector memory entries
 * and the checkpoint watch values after cycle 44 (translation findings held: CHECKPOINT_STALE and TRANSLATION_ERROR)
 * and after cycle 64 (TASK_STALLED's marks, a watch with a segment), and how that release read them back at the next
 * cycle's time (`readAt`): its loadDetectorMemoryEntries, and its translation finding source's carried findings.
 */
interface Fixture {
  writtenAt: number;
  readAt: number;
  entries: [string, string][];
  values: Record<string, string | null>;
  mainLoaded: DetectorMemory;
  mainTranslationFindings: Finding[];
}

function readFixture(name: string): Fixture {
  return JSON.parse(gunzipSync(readFileSync(path.join(__dirname, "fixtures", name))).toString("utf8")) as Fixture;
}

/** The watch a version 2 head names: its base with its segments applied. */
function applyStoredWatch(values: Fixture["values"]): CheckpointWatch {
  const head = JSON.parse(values["checkpoint-watch"]!) as { generation: number; segments: number };
  const base = `checkpoint-watch~${head.generation % 2}`;
  const watch = JSON.parse(values[base]!) as CheckpointWatch;
  for (let i = 1; i <= head.segments; i++) {
    for (const [key, entry] of Object.entries(JSON.parse(values[`${base}.${i}`]!) as Record<string, CheckpointWatch[string] | null>)) {
      if (entry === null) delete watch[key];
      else watch[key] = entry;
    }
  }
  return watch;
}

const stores = createTempSqliteStores("gapwatch-rule-memory-compat-");
const translationTypes: ReadonlySet<string> = new Set(translationRule.types);

describe("rule memory stored by the release before the engine loads as that release read it", () => {
  for (const name of ["rule-memory-94ef88c-soak-cycle44.json.gz", "rule-memory-94ef88c-soak-cycle64.json.gz"]) {
    it(name, async () => {
      const fixture = readFixture(name);
      const store = stores.open();
      await store.saveDetectorMemoryEntries(fixture.entries.map(([key, value]) => ({ key, value })));
      for (const [key, value] of Object.entries(fixture.values)) if (value !== null) await store.setValue(key, value);

      const memory = await new RuleMemoryKeeper(store).load(fixture.readAt);
      const { version, events, syncMarkers, positions, committed } = memory;
      const detectorFindings = memory.lastFindings.filter((f) => !translationTypes.has(f.type));
      expect(JSON.parse(JSON.stringify({ version, events, syncMarkers, positions, committed, lastFindings: detectorFindings }))).toEqual(fixture.mainLoaded);
      expect(memory.lastFindings.filter((f) => translationTypes.has(f.type))).toEqual(fixture.mainTranslationFindings);
      expect(Object.fromEntries(memory.checkpointWatch.entries())).toEqual(applyStoredWatch(fixture.values));
      // What the fixture holds, so the comparisons above compare something.
      expect([events.length > 0, Object.keys(committed).length > 0, detectorFindings.length > 0]).toEqual([true, true, true]);
      expect(fixture.mainTranslationFindings.length > 0 || Object.keys(positions).length > 0).toBe(true);

    });
  }
});
