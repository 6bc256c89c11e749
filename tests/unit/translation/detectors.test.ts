import { describe, expect, it } from "vitest";
import { type CheckpointPoint } from "@/lib/collector/types";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { translateFlow, type FlowTranslation } from "@/lib/translation";
import { detectTranslationErrors, type CheckpointWatch } from "@/lib/detect/translation-detectors";
import { resolveCheckpointStaleMs, restateStaleCheckpoint } from "@/lib/detect/translation-detectors";
import { FLOW, makeCheckpoint, makeFlow, makeGroup, makeHistory, steadySyncs, syncs, T0 } from "./fixtures";

const MINUTE = 60_000;

/** The watch's entries by key (CheckpointWatchState keeps them as columns). */
const entriesOf = (watch: CheckpointWatchState): CheckpointWatch => Object.fromEntries(watch.entries());

/** Group "app" on orders/0 with a sync every 10 offsets up to 10,000, at `now`. */
function translateApp(committed: bigint, checkpoints: CheckpointPoint[], now = T0): FlowTranslation {
  return translateFlow({
    flow: makeFlow({ checkpoints }),
    sourceGroups: [makeGroup("app", { "orders/0": committed })],
    syncHistory: makeHistory({ 0: steadySyncs(10, 10_000) }),
    now,
  });
}

describe("detectTranslationErrors", () => {
  it("warns when a group's failover replay exceeds the threshold, and stays quiet at or below it", () => {
    // MM2's store has thinned syncs around 5000 (a sync kept at 3840): it translates 5000 to 3841.
    const far = translateApp(5000n, []);
    const limits = { replayRecords: 1000, checkpointStaleMs: 5 * MINUTE };
    const [finding] = detectTranslationErrors(far, T0, limits);
    expect(finding).toMatchObject({
      key: `TRANSLATION_ERROR|${FLOW}|app`,
      type: "TRANSLATION_ERROR",
      severity: "warning",
      flow: FLOW,
      group: "app",
      observedAt: T0,
      evidence: { failoverReplayRecords: "1159", rereadRecords: "1159", skippingPartitions: 0, thresholdRecords: "1000" },
    });
    expect(finding!.summary).toMatch(/re-read 1159 records/);
    expect(detectTranslationErrors(far, T0, { replayRecords: 1159, checkpointStaleMs: 5 * MINUTE })).toEqual([]);
    expect(detectTranslationErrors(translateApp(9995n, []), T0, limits)).toEqual([]);
    // The default threshold (10,000) leaves MM2's ordinary sync spacing alone.
    expect(detectTranslationErrors(far, T0)).toEqual([]);
  });

  it("is critical when any partition would skip records (the checkpoint is ahead of the group)", () => {
    const ft = translateApp(9000n, [makeCheckpoint("app", "orders", 0, 9800n, 9800n)]);
    const [finding] = detectTranslationErrors(ft, T0);
    expect(finding?.severity).toBe("critical");
    expect(finding?.summary).toMatch(/would SKIP records.*orders\/0: 800 records/);
    expect(finding?.evidence.skippedRecords).toBe("800");
  });
});

/** CHECKPOINT_STALE as the translation rule judges it: one CheckpointWatchState, judged cycle after cycle. */
describe("CheckpointWatchState.judge", () => {
  const threshold = { replayRecords: 1000, checkpointStaleMs: 5 * MINUTE };

  it("fires once MM2 has owed a newer checkpoint for longer than the threshold while the group moved", () => {
    const checkpoint = makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0);
    const watch = new CheckpointWatchState();
    // At T0 the group is at 9995: MM2 translates it to 9991 > 9000, so a checkpoint is owed.
    expect(watch.judge(translateApp(9995n, [checkpoint], T0), T0, threshold)).toEqual([]);
    const later = T0 + 6 * MINUTE;
    const findings = watch.judge(translateApp(9995n, [checkpoint], later), later, threshold);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: `CHECKPOINT_STALE|${FLOW}|app|orders|0`,
      type: "CHECKPOINT_STALE",
      severity: "warning",
      cluster: "west",
      topic: "orders",
      partition: 0,
      group: "app",
      evidence: { committed: "9995", checkpointUpstream: "9000", checkpointDownstream: "9000", expectedDownstream: "9991", owedForMs: 6 * MINUTE },
    });
  });

  it("restarts the clock when a new checkpoint arrives", () => {
    const watch = new CheckpointWatchState();
    watch.judge(translateApp(9995n, [makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0)]), T0, threshold);
    const later = T0 + 6 * MINUTE;
    const fresh = makeCheckpoint("app", "orders", 0, 9500n, 9500n, -6 * MINUTE + 1000);
    expect(watch.judge(translateApp(9995n, [fresh], later), later, threshold)).toEqual([]);
  });

  it("stays quiet when the group did not move, or moved without changing MM2's translation", () => {
    const old = T0 + 60 * MINUTE;
    const still = makeCheckpoint("app", "orders", 0, 9995n, 9991n, 0);
    const w1 = new CheckpointWatchState();
    w1.judge(translateApp(9995n, [still]), T0, threshold);
    expect(w1.judge(translateApp(9995n, [still], old), old, threshold)).toEqual([]);
    // 9992 → 9998 all translate to 9991 (sync 9990 + 1): MM2 legitimately emits nothing new.
    const same = makeCheckpoint("app", "orders", 0, 9992n, 9991n, 0);
    const w2 = new CheckpointWatchState();
    w2.judge(translateApp(9998n, [same]), T0, threshold);
    expect(w2.judge(translateApp(9998n, [same], old), old, threshold)).toEqual([]);
  });

  it("reports a group MM2 never checkpointed past MM2's group discovery, and forgets partitions no longer owed", () => {
    const ft = translateFlow({ flow: makeFlow(), sourceGroups: [makeGroup("app", { "orders/0": 150n })], syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100]) }), now: T0 });
    const watch = new CheckpointWatchState({ "other->flow|x|t|0": { checkpoint: null, dueSince: 1 } });
    watch.judge(ft, T0, threshold);
    expect(Object.keys(entriesOf(watch)).sort()).toEqual([`${FLOW}|app|orders|0`, "other->flow|x|t|0"]);
    // MM2's default refresh (600 s) + 3 × emit (60 s): a 5-minute override does not shorten a new group's wait.
    expect(watch.judge({ ...ft, at: T0 + 12 * MINUTE }, T0 + 12 * MINUTE, threshold)).toEqual([]);
    const later = T0 + 14 * MINUTE;
    expect(watch.judge({ ...ft, at: later }, later, threshold)[0]?.summary).toMatch(/never checkpointed app on orders\/0/);
    const caughtUp = translateFlow({ flow: makeFlow(), sourceGroups: [], syncHistory: new Map(), now: later });
    watch.judge(caughtUp, later, threshold);
    expect(entriesOf(watch)).toEqual({ "other->flow|x|t|0": { checkpoint: null, dueSince: 1 } });
  });
});

describe("restateStaleCheckpoint: a CHECKPOINT_STALE finding kept time-free and read at a later cycle", () => {
  const threshold = { replayRecords: 1000, checkpointStaleMs: 5 * MINUTE };
  /** The finding CheckpointWatchState gives at `now` for a checkpoint owed since T0 (checkpointed at T0, or never). */
  const staleAt = (now: number, checkpoints: CheckpointPoint[]) => {
    const watch = new CheckpointWatchState();
    watch.judge(translateApp(9995n, checkpoints, T0), T0, threshold);
    return watch.judge(translateApp(9995n, checkpoints, now), now, threshold)[0]!;
  };

  it("restated at the debt's start and back at a later cycle reads exactly as judged then: clocks, summary, time", () => {
    for (const checkpoints of [[{ ...makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0), at: T0 }], []]) {
      // Past both thresholds: 5 min (the override) for the checkpointed group, 13 min for the one never checkpointed.
      const at14 = staleAt(T0 + 14 * MINUTE, checkpoints);
      const pinned = restateStaleCheckpoint(at14, T0);
      expect([pinned.observedAt, pinned.evidence.owedForMs, pinned.summary.includes("0 min")]).toEqual([T0, 0, true]);
      expect(restateStaleCheckpoint(pinned, T0 + 14 * MINUTE)).toEqual(at14);
      expect(restateStaleCheckpoint(pinned, T0 + 19 * MINUTE + 40_000)).toEqual(staleAt(T0 + 19 * MINUTE + 40_000, checkpoints));
    }
    const other = { ...staleAt(T0 + 14 * MINUTE, []), type: "TRANSLATION_ERROR" as const };
    expect(restateStaleCheckpoint(other, T0)).toBe(other);
  });
});

describe("resolveCheckpointStaleMs: CHECKPOINT_STALE's threshold from MM2's own settings", () => {
  it("owed to a group MM2 already checkpoints: max(3 × emit interval, 60 s)", () => {
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 5_000, refreshGroupsIntervalMs: 600_000 }, true)).toBe(60_000);
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, true)).toBe(180_000);
  });

  it("owed to a group never checkpointed: max(refresh interval + 3 × emit interval, 60 s)", () => {
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, false)).toBe(780_000);
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 5_000, refreshGroupsIntervalMs: 60_000 }, false)).toBe(75_000);
    // The sandbox's 5 s intervals: 20 s would be shorter than MM2's task reconfiguration on a loaded machine.
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 5_000, refreshGroupsIntervalMs: 5_000 }, false)).toBe(60_000);
  });

  it("takes the operator's thresholds.checkpointStaleMs for a checkpointed group, and never flags when MM2 emits none", () => {
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, true, 90_000)).toBe(90_000);
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 5_000, refreshGroupsIntervalMs: 5_000 }, true, 30_000)).toBe(30_000);
    expect(resolveCheckpointStaleMs({ emitIntervalMs: null, refreshGroupsIntervalMs: 600_000 }, true, 90_000)).toBeNull();
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: null }, false)).toBeNull();
  });

  it("lets the override lengthen a new group's wait, never shorten it below MM2's group discovery", () => {
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, false, 90_000)).toBe(780_000);
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 5_000, refreshGroupsIntervalMs: 5_000 }, false, 30_000)).toBe(60_000);
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 }, false, 3_600_000)).toBe(3_600_000);
    // With group refresh off MM2 never discovers a new group; the override alone decides, as before.
    expect(resolveCheckpointStaleMs({ emitIntervalMs: 60_000, refreshGroupsIntervalMs: null }, false, 90_000)).toBe(90_000);
  });
});

describe("CheckpointWatchState.judge with MM2's default timing (emit 60 s, refresh 600 s)", () => {
  const limits = { replayRecords: 1000 };

  it("flags a checkpoint owed to a checkpointed group after 180 s, not before", () => {
    const checkpoint = makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0);
    const watch = new CheckpointWatchState();
    watch.judge(translateApp(9995n, [checkpoint], T0), T0, limits);
    const at = (ms: number) => watch.judge(translateApp(9995n, [checkpoint], T0 + ms), T0 + ms, limits);
    expect(at(180_000)).toEqual([]);
    expect(at(180_001).map((f) => [f.key, f.evidence.thresholdMs, f.evidence.owedForMs])).toEqual([[`CHECKPOINT_STALE|${FLOW}|app|orders|0`, 180_000, 180_001]]);
  });

  it("gives a group MM2 never checkpointed until its next group refresh: 780 s", () => {
    const ft = (now: number) => translateFlow({ flow: makeFlow(), sourceGroups: [makeGroup("new-app", { "orders/0": 150n })], syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100]) }), now });
    const watch = new CheckpointWatchState();
    watch.judge(ft(T0), T0, limits);
    expect(watch.judge(ft(T0 + 780_000), T0 + 780_000, limits)).toEqual([]);
    const late = watch.judge(ft(T0 + 780_001), T0 + 780_001, limits);
    expect(late.map((f) => [f.group, f.evidence.thresholdMs, f.evidence.emitIntervalMs, f.evidence.refreshGroupsIntervalMs])).toEqual([["new-app", 780_000, 60_000, 600_000]]);
  });

  it("never flags a group the checkpoint connector's groups.exclude leaves out", () => {
    const flow = makeFlow({ groupsExclude: "batch-.*" });
    const ft = (now: number) => translateFlow({ flow, sourceGroups: [makeGroup("batch-nightly", { "orders/0": 150n })], syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100]) }), now });
    expect(ft(T0).excludedGroups).toEqual(["batch-nightly"]);
    const watch = new CheckpointWatchState();
    watch.judge(ft(T0), T0, limits);
    expect(watch.judge(ft(T0 + 3_600_000), T0 + 3_600_000, limits)).toEqual([]);
  });

  it("keeps the flow's watch untouched and judges nothing while the offset syncs cannot be read", () => {
    const stored: CheckpointWatch = { [`${FLOW}|app|orders|0`]: { checkpoint: "9000:9000", dueSince: T0 } };
    const watch = new CheckpointWatchState(stored);
    const ft = { ...translateApp(9995n, [makeCheckpoint("app", "orders", 0, 9000n, 9000n, 0)], T0 + 3_600_000), syncsLoaded: false };
    expect(watch.judge(ft, T0 + 3_600_000, limits)).toEqual([]);
    expect(entriesOf(watch)).toEqual(stored);
    // Nothing for the persister to write either.
    const changed: string[] = [];
    watch.takeChanges((key) => changed.push(key));
    expect(changed).toEqual([]);
  });
});
