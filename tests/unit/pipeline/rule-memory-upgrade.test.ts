import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { CheckpointWatch } from "@/lib/detect/translation-detectors";
import type { Finding } from "@/lib/detect/types";
import { RuleMemoryKeeper } from "@/lib/pipeline/rule-memory";
import type { Store } from "@/lib/store";
import { holdShards } from "../collector/shard-fixtures";
import { createTempSqliteStores } from "./temp-sqlite-stores";

/**
 * The checkpoint watch and translation findings as the version before one memory scheme (83f9656) stored them, made
 * by that version's own writer taken from git history (fixtures/make-checkpoint-watch-forms.ts), with what its reader
 * loaded from each at `readAt`.
 */
interface StoredForm {
  readAt: number;
  values: Record<string, string>;
  /** scaleOut: the shard count and the shards the reading collector holds. */
  shards?: number;
  held?: number[];
  expected: { watch: CheckpointWatch; findings: Finding[] };
}

const forms = JSON.parse(
  gunzipSync(readFileSync(path.join(__dirname, "fixtures", "checkpoint-watch-83f9656-stored-forms.json.gz"))).toString("utf8"),
) as Record<"version2" | "version1Shards" | "version1", StoredForm>;

const stores = createTempSqliteStores("gapwatch-rule-memory-upgrade-");

const byKey = (findings: readonly Finding[]) => [...findings].sort((a, b) => a.key.localeCompare(b.key));

/** What a new keeper (a restart) loads at `readAt`: the watch's entries and the level findings. */
async function loadAt(store: Store, form: StoredForm) {
  const scope = form.shards === undefined ? null : holdShards(form.held!, form.shards);
  const keeper = new RuleMemoryKeeper(store, scope);
  const memory = await keeper.load(form.readAt);
  return { keeper, memory, watch: Object.fromEntries(memory.checkpointWatch.entries()), findings: byKey(memory.lastFindings) };
}

describe("a checkpoint watch stored by the version before loads as that version read it, then lives on as entries", () => {
  for (const name of ["version2", "version1Shards", "version1"] as const) {
    it(name, async () => {
      const form = forms[name];
      const store = stores.open();
      for (const [key, value] of Object.entries(form.values)) await store.setValue(key, value);
      // What the fixture holds, so the comparisons compare something: owed entries, and findings of both kinds.
      expect(Object.keys(form.expected.watch).length).toBeGreaterThan(5);
      expect(new Set(form.expected.findings.map((f) => f.observedAt === form.readAt))).toEqual(new Set([true, false]));

      const first = await loadAt(store, form);
      expect(first.watch).toEqual(form.expected.watch);
      expect(first.findings).toEqual(byKey(form.expected.findings));
      // The first write stores them as entries (the watch whole, and that it is kept so).
      await first.keeper.save(first.memory, form.readAt);
      const entries = (await store.loadDetectorMemoryEntries()).map(([key]) => key);
      const prefixes = form.held?.map((s) => `@${s}|`) ?? [""];
      for (const prefix of prefixes) expect(entries).toContain(`${prefix}watch-entries`);
      // As numbers (the watch's chunk rows), no JSON row per entry.
      expect(entries.filter((key) => key.includes("watch|"))).toEqual([]);
      for (const prefix of prefixes) expect(entries.some((key) => key.startsWith(`${prefix}watches|`))).toBe(true);

      // The old values are left, and ignored from now on: a restart reads the entries alone.
      for (const key of Object.keys(form.values)) await store.setValue(key, "{not json");
      const restarted = await loadAt(store, form);
      expect(restarted.watch).toEqual(form.expected.watch);
      expect(restarted.findings).toEqual(byKey(form.expected.findings));
    });
  }
});
