import { describe, expect, it } from "vitest";
import type { CheckpointPoint, ConsumerGroupState } from "@/lib/collector/types";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { createDetectorMemory } from "@/lib/detect/memory";
import { createMemoryPersister, loadDetectorMemoryEntries, type MemoryEntryChange, type MemoryPersister } from "@/lib/detect/memory-persistence";
import { type CheckpointWatch } from "@/lib/detect/translation-detectors";
import { type FlowTranslation, translateFlow } from "@/lib/translation";
import { FLOW, makeCheckpoint, makeFlow, makeGroup, makeHistory, steadySyncs, T0 } from "../translation/fixtures";
import { createRandom } from "../seeded-random";
import { detectReferenceStaleCheckpoints } from "./reference-stale-checkpoints";

const MINUTE = 60_000;
const limits = { replayRecords: 1000, checkpointStaleMs: 3 * MINUTE };
const partitions = [0, 1, 2, 3];
const groupIds = ["app", "billing", "audit"];

/** One cycle's world: each group's committed offset and MM2's latest checkpoint per partition. */
interface World {
  committed: Map<string, bigint>;
  checkpoints: Map<string, CheckpointPoint>;
}

/** The next cycle's committed offsets: groups stay, move on, or move back. */
function moveGroups(world: World, random: () => number): void {
  for (const group of groupIds) {
    for (const p of partitions) {
      const key = `${group}/${p}`;
      const committed = world.committed.get(key) ?? 1000n;
      const roll = random();
      world.committed.set(key, roll < 0.4 ? committed : roll < 0.9 ? committed + BigInt(1 + Math.floor(random() * 400)) : committed - 250n);
    }
  }
}

/** MM2 checkpoints some group partitions of `ft`, read at `now`. */
function emitCheckpoints(world: World, ft: FlowTranslation, random: () => number, now: number): void {
  for (const g of ft.groups) {
    for (const row of g.partitions) {
      const roll = random();
      if (row.translation.kind !== "translated" || roll > 0.2) continue;
      // Mostly of the committed offset (the debt paid); sometimes ahead of it, as if of an earlier position (still owed).
      const ahead = roll < 0.05 ? 1000n : 0n;
      const [upstream, downstream] = [row.committed + ahead, row.translation.downstream + ahead];
      world.checkpoints.set(`${g.group}/${row.partition}`, { group: g.group, topic: "orders", partition: row.partition, upstream, downstream, at: now });
    }
  }
}

/** The world translated at `now`, with only `present` groups read and `unknown` ones unreadable. */
function translate(world: World, now: number, present: readonly string[], unknown: readonly string[]): FlowTranslation {
  const groups: ConsumerGroupState[] = present.map((group) => {
    const offsets = Object.fromEntries(partitions.map((p) => [`orders/${p}`, world.committed.get(`${group}/${p}`)!]));
    return makeGroup(group, offsets, unknown.includes(group) ? { error: "COORDINATOR_NOT_AVAILABLE" } : {});
  });
  return translateFlow({
    flow: makeFlow({ checkpoints: [...world.checkpoints.values()] }),
    sourceGroups: groups,
    syncHistory: makeHistory(Object.fromEntries(partitions.map((p) => [p, steadySyncs(100, 40_000)]))),
    now,
  });
}

/** The entries `watch` holds for `flow` (the reference watch may hold other flows' too). */
function entriesOf(watch: CheckpointWatchState): CheckpointWatch {
  return Object.fromEntries(watch.entries());
}

/** The keys whose entry changed since the last take, each with its entry now (null: gone). */
function takeChangedEntries(watch: CheckpointWatchState): Map<string, CheckpointWatch[string] | null> {
  const changes = new Map<string, CheckpointWatch[string] | null>();
  watch.takeChanges((key, slots, slot) => changes.set(key, slot < 0 ? null : slots.entry(slot)));
  return changes;
}

/** Lists the persister's changes for `watch` at `now` into `store` (as the pipeline's store applies them). */
function persist(persister: MemoryPersister, store: Map<string, string>, watch: CheckpointWatchState, now: number): void {
  const changes: MemoryEntryChange[] = persister.listChanges({ ...createDetectorMemory(), checkpointWatch: watch }, now);
  for (const { key, value } of changes) {
    if (value === null) store.delete(key);
    else store.set(key, value);
  }
}

/** The JSON rows of a store's watch entries (those not exact as numbers). */
function watchRows(store: Map<string, string>): [string, string][] {
  return [...store].filter(([key]) => key.startsWith("watch|")).sort(([a], [b]) => a.localeCompare(b));
}

/** `ft` with group `group`'s checkpoints ahead of it beyond 2^53 (owed: offsets held as bigints). */
function withHugeCheckpoints(ft: FlowTranslation, group: string, downstream: bigint, now: number): FlowTranslation {
  const huge = (p: FlowTranslation["groups"][number]["partitions"][number]) => ({
    ...p, checkpoint: { upstream: 2n ** 60n, downstream, at: now, ageMs: 0 },
  });
  return { ...ft, groups: ft.groups.map((g) => (g.group === group ? { ...g, partitions: g.partitions.map(huge) } : g)) };
}

/** The evidence of a CHECKPOINT_STALE finding for group "app" at 2000 on orders, under `limits` and MM2's default timing. */
function staleEvidence(checkpoint: { upstream: bigint; downstream: bigint; ageMs: number }, owedForMs: number) {
  return {
    committed: "2000",
    checkpointUpstream: `${checkpoint.upstream}`,
    checkpointDownstream: `${checkpoint.downstream}`,
    checkpointAgeMs: checkpoint.ageMs,
    expectedDownstream: "1",
    owedForMs,
    thresholdMs: 3 * MINUTE,
    emitIntervalMs: 60_000,
    refreshGroupsIntervalMs: 600_000,
  };
}

describe("CheckpointWatchState", () => {
  // The differential test: over 60 random cycles, the watch kept in place must give the answers of the per-object
  // judgement it replaced (the reference, kept for this comparison only). The other tests assert the watch's answers.
  it("differential: answers as the per-object reference over random cycles: findings, entries and the changes between them", () => {
    const random = createRandom(7);
    const world: World = { committed: new Map(), checkpoints: new Map() };
    const watch = new CheckpointWatchState();
    let reference: CheckpointWatch = {};
    let findings = 0;
    let changes = 0;
    for (let cycle = 0; cycle < 60; cycle++) {
      const now = T0 + cycle * MINUTE;
      moveGroups(world, random);
      // Now and then a group is not read, or unreadable, or the groups come in another order.
      const present = groupIds.filter(() => random() > 0.1);
      const unknown = present.filter(() => random() < 0.1);
      if (random() < 0.2) present.reverse();
      const ft = translate(world, now, present, unknown);
      const expected = detectReferenceStaleCheckpoints(ft, reference, now, limits);
      expect(watch.judge(ft, now, limits)).toEqual(expected.findings);
      expect(entriesOf(watch)).toEqual(expected.watch);
      // The changes taken are exactly the difference between the two watches.
      const diff = new Map<string, CheckpointWatch[string] | null>();
      for (const key of new Set([...Object.keys(reference), ...Object.keys(expected.watch)])) {
        const [before, after] = [reference[key], expected.watch[key]];
        if (JSON.stringify(before) !== JSON.stringify(after)) diff.set(key, after ?? null);
      }
      expect(takeChangedEntries(watch)).toEqual(diff);
      findings += expected.findings.length;
      changes += diff.size;
      reference = expected.watch;
      emitCheckpoints(world, ft, random, now);
    }
    // The sequence exercised the watch: stale partitions were found, entries came and went.
    expect(findings).toBeGreaterThan(10);
    expect(changes).toBeGreaterThan(50);
  });

  it("carries a stored watch on: its clocks where the checkpoint is the same, anew where the identity is not one", () => {
    // The group moved back below MM2's checkpoints: MM2 owes the rewound ones.
    const world: World = {
      committed: new Map(partitions.map((p) => [`app/${p}`, 2000n])),
      checkpoints: new Map(partitions.map((p) => [`app/${p}`, makeCheckpoint("app", "orders", p, 2500n, 2500n, 20 * MINUTE)])),
    };
    const stored: CheckpointWatch = {
      [`${FLOW}|app|orders|0`]: { checkpoint: "2500:2500", dueSince: T0 - 10 * MINUTE },
      // Not as `${bigint}` writes offsets: never the same checkpoint.
      [`${FLOW}|app|orders|1`]: { checkpoint: "02500:2500", dueSince: T0 - 10 * MINUTE },
      [`${FLOW}|app|orders|2`]: { checkpoint: "2400:2400", dueSince: T0 - 10 * MINUTE },
      [`${FLOW}|gone|orders|0`]: { checkpoint: null, dueSince: T0 - 10 * MINUTE },
    };
    const ft = translate(world, T0, ["app"], []);
    const watch = new CheckpointWatchState(stored);
    // orders/0's clock carries on (owed 10 min, past the 3-minute threshold); 1–3 are owed anew from T0.
    expect(watch.judge(ft, T0, limits)).toEqual([
      {
        key: `CHECKPOINT_STALE|${FLOW}|app|orders|0`,
        type: "CHECKPOINT_STALE",
        severity: "warning",
        flow: FLOW,
        cluster: "west",
        topic: "orders",
        partition: 0,
        group: "app",
        summary: "MM2 has not checkpointed app on orders/0 for 10 min: committed 2000, latest checkpoint 2500→2500, MM2 should emit →1",
        evidence: staleEvidence({ upstream: 2500n, downstream: 2500n, ageMs: 20 * MINUTE }, 10 * MINUTE),
        observedAt: T0,
      },
    ]);
    expect(entriesOf(watch)).toEqual({
      [`${FLOW}|app|orders|0`]: { checkpoint: "2500:2500", dueSince: T0 - 10 * MINUTE },
      [`${FLOW}|app|orders|1`]: { checkpoint: "2500:2500", dueSince: T0 },
      [`${FLOW}|app|orders|2`]: { checkpoint: "2500:2500", dueSince: T0 },
      [`${FLOW}|app|orders|3`]: { checkpoint: "2500:2500", dueSince: T0 },
    });
    expect(takeChangedEntries(watch)).toEqual(
      new Map([
        [`${FLOW}|app|orders|1`, { checkpoint: "2500:2500", dueSince: T0 }],
        [`${FLOW}|app|orders|2`, { checkpoint: "2500:2500", dueSince: T0 }],
        [`${FLOW}|app|orders|3`, { checkpoint: "2500:2500", dueSince: T0 }],
        [`${FLOW}|gone|orders|0`, null],
      ]),
    );
  });

  it("compares checkpoints beyond 2^53 exactly (rows held as objects)", () => {
    const world: World = {
      committed: new Map(partitions.map((p) => [`app/${p}`, 2000n])),
      checkpoints: new Map(partitions.map((p) => [`app/${p}`, makeCheckpoint("app", "orders", p, 1500n, 1500n)])),
    };
    const base = translate(world, T0, ["app"], []);
    // A checkpoint ahead of the group (owed: MM2 emits on a rewind); 2^53 and 2^53 + 1 are one float64.
    const withCheckpoint = (offset: bigint, now: number): FlowTranslation => ({
      ...base,
      groups: base.groups.map((g) => ({ ...g, partitions: g.partitions.map((p) => ({ ...p, checkpoint: { upstream: 2n ** 60n, downstream: offset, at: now, ageMs: 0 } })) })),
    });
    const huge = 2n ** 53n;
    expect(Number(huge)).toBe(Number(huge + 1n));
    /** Every partition owed the checkpoint of `offset` since `dueSince`. */
    const owed = (offset: bigint, dueSince: number): CheckpointWatch =>
      Object.fromEntries(partitions.map((p) => [`${FLOW}|app|orders|${p}`, { checkpoint: `${2n ** 60n}:${offset}`, dueSince }]));
    const watch = new CheckpointWatchState();
    const judge = (offset: bigint, now: number) => watch.judge(withCheckpoint(offset, T0), now, limits);
    expect(judge(huge, T0)).toEqual([]);
    expect(entriesOf(watch)).toEqual(owed(huge, T0));
    // The same checkpoint: the clock runs on.
    expect(judge(huge, T0 + MINUTE)).toEqual([]);
    expect(entriesOf(watch)).toEqual(owed(huge, T0));
    // 2^53 + 1 is another checkpoint, though the same float64: the clock restarts.
    expect(judge(huge + 1n, T0 + 2 * MINUTE)).toEqual([]);
    expect(entriesOf(watch)).toEqual(owed(huge + 1n, T0 + 2 * MINUTE));
    const stale = judge(huge + 1n, T0 + 6 * MINUTE);
    expect(stale.map((f) => [f.key, f.evidence])).toEqual(partitions.map((p) => [
      `CHECKPOINT_STALE|${FLOW}|app|orders|${p}`,
      staleEvidence({ upstream: 2n ** 60n, downstream: huge + 1n, ageMs: 0 }, 4 * MINUTE),
    ]));
    expect(entriesOf(watch)).toEqual(owed(huge + 1n, T0 + 2 * MINUTE));
  });
  it("is stored from the changes it takes as from a whole comparison: read back the same, across a restart", () => {
    const random = createRandom(11);
    const world: World = { committed: new Map(), checkpoints: new Map() };
    // Stored entries the judgements replace or drop: a text that names no checkpoint, offsets beyond 2^53, a group gone.
    let watch = new CheckpointWatchState({
      [`${FLOW}|app|orders|1`]: { checkpoint: "02500:2500", dueSince: T0 - MINUTE },
      [`${FLOW}|billing|orders|2`]: { checkpoint: "9007199254740993:5", dueSince: T0 - MINUTE },
      [`${FLOW}|gone|orders|0`]: { checkpoint: null, dueSince: T0 - MINUTE },
    });
    let incremental = createMemoryPersister();
    const whole = createMemoryPersister();
    const [byChanges, byWhole] = [new Map<string, string>(), new Map<string, string>()];
    let withRows = 0;
    for (let cycle = 0; cycle < 40; cycle++) {
      const now = T0 + cycle * MINUTE;
      moveGroups(world, random);
      const present = groupIds.filter(() => random() > 0.1);
      const unknown = present.filter(() => random() < 0.1);
      let ft = translate(world, now, present, unknown);
      // Now and then the audit group's checkpoints are beyond 2^53 (2^53 and 2^53 + 1 are one float64).
      if (random() < 0.3) ft = withHugeCheckpoints(ft, "audit", 2n ** 53n + BigInt(cycle % 2), now);
      watch.judge(ft, now, limits);
      persist(incremental, byChanges, watch, now);
      // A watch the persister has not seen is compared whole.
      persist(whole, byWhole, new CheckpointWatchState(entriesOf(watch)), now);
      const loaded = loadDetectorMemoryEntries(byChanges);
      expect(loaded.error).toBeNull();
      expect(loaded.watch).toEqual(entriesOf(watch));
      expect(loaded.watch).toEqual(loadDetectorMemoryEntries(byWhole).watch);
      expect(watchRows(byChanges)).toEqual(watchRows(byWhole));
      withRows += Number(watchRows(byChanges).length > 0);
      if (cycle === 20) {
        // A restart: the watch and a persister read from the store.
        incremental = createMemoryPersister([...byChanges]);
        watch = new CheckpointWatchState(loaded.watch);
      }
      emitCheckpoints(world, ft, random, now);
    }
    // Entries not exact as numbers were stored as JSON rows, and deleted again.
    expect(withRows).toBeGreaterThan(5);
    expect(withRows).toBeLessThan(40);
  });
});
