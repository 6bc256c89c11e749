import { describe, expect, it } from "vitest";
import { type CheckpointPoint, flowPartitionKey } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import type { Finding } from "@/lib/detect/types";
import { createTranslationFindingSource } from "./translation-finding-source";
import type { Store } from "@/lib/store";
import { CheckpointIndex, type FlowTranslation, SyncModelCache, translateFlow } from "@/lib/translation";
import { loadDetectorMemoryEntries } from "@/lib/detect/memory-persistence";
import { type CheckpointWatch, detectTranslationErrors } from "@/lib/detect/translation-detectors";
import { makeFlow, makeGroup, steadySyncs, T0 } from "../translation/fixtures";
import { createTempSqliteStores } from "./temp-sqlite-stores";
import { detectReferenceStaleCheckpoints } from "../detect/reference-stale-checkpoints";

const FLOWS = ["east->west", "east->south"];
const cycleMs = 10_000;
const thresholds = { ...defaultThresholds, checkpointStaleMs: 120_000 };
const limits = { replayRecords: thresholds.translationReplayRecords, checkpointStaleMs: thresholds.checkpointStaleMs };
/** MM2's intervals short enough that a group never checkpointed is owed within the run: max(30 + 3 × 5 s, 60 s, 120 s). */
const checkpointTiming = { emitIntervalMs: 5_000, refreshGroupsIntervalMs: 30_000 };

/**
 * Two flows over orders/0..3, 40 cycles 10 s apart. Syncs arrive every third cycle; "app" commits 30 more on every
 * partition each cycle and MM2 checkpoints its partitions 0–2 in turn (every fourth cycle), never orders/3 (owed
 * since T0: stale from cycle 13); "batch" moves once on orders/0 (cycle 5), stays at 1050 on orders/1 (beyond the
 * newest sync until cycle 3's arrives) and is never checkpointed; "leaver" (never
 * checkpointed either) leaves at cycle 15; "flaky"'s offsets cannot be read in cycles 20–23; east->south's syncs cannot be read in cycles 8–10.
 */
function createWorld() {
  const histories = new Map(FLOWS.map((id) => [id, new Map([0, 1, 2, 3].map((p) => [flowPartitionKey(id, "orders", p), steadySyncs(100, 1000)]))]));
  const checkpoints = new Map<string, CheckpointPoint>();
  for (const p of [0, 1, 2, 3]) checkpoints.set(`app|${p}`, { group: "app", topic: "orders", partition: p, upstream: 900n, downstream: 900n, at: T0 });
  return (c: number) => {
    const now = T0 + c * cycleMs;
    const committed = 1000n + 30n * BigInt(c);
    if (c > 0 && c % 3 === 0) for (const history of histories.values()) for (const list of history.values()) list.push({ upstream: committed - 10n, downstream: committed - 10n });
    for (const p of [0, 1, 2]) {
      if ((c + p) % 4 === 0) checkpoints.set(`app|${p}`, { group: "app", topic: "orders", partition: p, upstream: committed, downstream: committed - 5n, at: now - 2500 });
    }
    const groups = [
      makeGroup("app", Object.fromEntries([0, 1, 2, 3].map((p) => [`orders/${p}`, committed]))),
      makeGroup("batch", { "orders/0": c < 5 ? 700n : 800n, "orders/1": 1050n }),
      ...(c < 15 ? [makeGroup("leaver", { "orders/2": 950n })] : []),
      makeGroup("flaky", { "orders/1": committed - 100n }, c >= 20 && c < 24 ? { error: "OffsetFetch: COORDINATOR_NOT_AVAILABLE", dataAt: now - 60_000 } : {}),
    ];
    return FLOWS.map((id) => ({
      flow: makeFlow({ id, target: id.split("->")[1]!, checkpoints: [...checkpoints.values()], checkpointTiming }),
      sourceGroups: groups,
      syncHistory: histories.get(id)!,
      now,
      syncsLoaded: !(id === "east->south" && c >= 8 && c <= 10),
    }));
  };
}


/**
 * The differential test's reference: every row translated from scratch, judged by the per-object CHECKPOINT_STALE
 * judgement the watch kept in place replaced (detectReferenceStaleCheckpoints, a new whole watch each cycle).
 */
function createReference() {
  let watch: CheckpointWatch = {};
  let last: Finding[] = [];
  return (translations: FlowTranslation[], now: number) => {
    const findings: Finding[] = [];
    // The engine lists a rule's carried findings after all it produced (lib/detect/engine.ts).
    const carriedAll: Finding[] = [];
    for (const ft of translations) {
      const produced = detectTranslationErrors(ft, now, limits);
      const stale = detectReferenceStaleCheckpoints(ft, watch, now, limits);
      watch = stale.watch;
      produced.push(...stale.findings);
      // Last cycle's findings of the flow not judged now stay (syncs unreadable, or the group's offsets unknown).
      const keys = new Set(produced.map((f) => f.key));
      const unknown = new Set(ft.groups.filter((g) => g.unknown !== null).map((g) => g.group));
      const carried = last.filter((f) => f.flow === ft.flow && !keys.has(f.key) && (!ft.syncsLoaded || (f.group !== undefined && unknown.has(f.group))));
      findings.push(...produced);
      carriedAll.push(...carried);
    }
    findings.push(...carriedAll);
    last = findings;
    return { findings, watch };
  };
}

/** The watch the store holds. */
async function readStoredWatch(store: Store): Promise<CheckpointWatch> {
  return loadDetectorMemoryEntries(await store.loadDetectorMemoryEntries()).watch;
}

const stores = createTempSqliteStores("gapwatch-watch-cycles-");
const openStore = () => stores.open();

/**
 * A differential test: the production path (translations kept from cycle to cycle, the translation rule run by the
 * engine with its CheckpointWatchState stored per change) against the from-scratch reference, 40 cycles of two flows.
 * What CHECKPOINT_STALE does in them is asserted on the production findings.
 */
describe("differential: the checkpoint watch kept from cycle to cycle (stored per change) against a from-scratch run", () => {
  it("every cycle: same translations, same findings, same watch stored, across a restart", { timeout: 30_000 }, async () => {
    const world = createWorld();
    const reference = createReference();
    let store = openStore();
    // Counts the watch entries each cycle writes.
    let written = 0;
    const counting = (inner: Store): Store => ({
      ...inner,
      saveDetectorMemoryEntries: async (changes) => {
        written = changes.filter((c) => c.key.startsWith("watches|") || c.key.startsWith("watch|")).length;
        await inner.saveDetectorMemoryEntries(changes);
      },
    });
    let source = createTranslationFindingSource(counting(store));
    const cache = new SyncModelCache();
    const kept = new Map(FLOWS.map((id) => [id, { checkpointIndex: new CheckpointIndex() }]));
    const seen = { stale: new Set<string>(), leaverStale: [] as number[], written: [] as number[] };
    for (let c = 0; c < 40; c++) {
      if (c === 25) {
        // A restart: a new process on the same database file reads the watch back.
        await stores.close(store);
        store = openStore();
        source = createTranslationFindingSource(counting(store));
      }
      const inputs = world(c);
      const now = inputs[0]!.now;
      const scratch = inputs.map((input) => translateFlow(input));
      // The new path: models and checkpoint index kept from cycle to cycle (as FlowTranslator keeps them).
      const translated = inputs.map((input) => translateFlow({ ...input, cache, ...kept.get(input.flow.id)! }));
      expect(translated, `cycle ${c}`).toEqual(scratch);
      const expected = reference(scratch, now);
      written = 0;
      const findings = await source(new Map(translated.map((ft) => [ft.flow, ft])), now, thresholds);
      expect(findings, `cycle ${c}`).toEqual(expected.findings);
      expect(await readStoredWatch(store), `cycle ${c}`).toEqual(expected.watch);
      seen.written.push(written);
      for (const f of findings) if (f.type === "CHECKPOINT_STALE") seen.stale.add(`${f.flow}|${f.group}|${f.partition}`);
      if (findings.some((f) => f.type === "CHECKPOINT_STALE" && f.group === "leaver")) seen.leaverStale.push(c);
    }
    // The sequence went through what it is meant to: stale checkpoints, and cycles writing only some of the watch.
    const staleGroupPartitions = ["app|3", "batch|0", "batch|1", "flaky|1", "leaver|2"];
    expect([...seen.stale].sort()).toEqual(FLOWS.toReversed().flatMap((flow) => staleGroupPartitions.map((gp) => `${flow}|${gp}`)));
    // "leaver"'s CHECKPOINT_STALE fires from cycle 13 and goes with the group (cycle 15).
    expect([13, 14, 15].map((c) => seen.leaverStale.includes(c))).toEqual([true, true, false]);
    const sizes = seen.written.map((n, c): [number, number] => [n, c]);
    expect(sizes.filter(([n]) => n === 0).length, JSON.stringify(sizes)).toBeGreaterThan(0);
    expect(sizes.filter(([n]) => n > 0).length, JSON.stringify(sizes)).toBeGreaterThan(5);
  });
});
