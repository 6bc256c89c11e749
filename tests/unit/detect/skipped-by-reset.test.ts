import { describe, expect, it } from "vitest";
import type { FlowPartition, Snapshot } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import type { SourceTaskSettings } from "@/lib/mm2";
import { findingsOf, makeFlowPartition, makeHistory, makeSnapshot, makeTopicConfigs, runCycles } from "./fixtures";

const latest: SourceTaskSettings = { offsetSyncsEnabled: true, autoOffsetReset: "latest" };
const syncsOff: SourceTaskSettings = { offsetSyncsEnabled: false, autoOffsetReset: "latest" };

/** A snapshot whose one flow runs with `settings`; without them MM2's defaults (earliest). */
function snapshotWith(cycle: number, partition: FlowPartition, settings?: SourceTaskSettings, cleanupPolicy = "delete"): Snapshot {
  const snapshot = makeSnapshot({ cycle, sourceConfigs: makeTopicConfigs({ cleanupPolicy }), partitions: [partition] });
  if (settings === undefined) return snapshot;
  return { ...snapshot, flows: snapshot.flows.map((f) => ({ ...f, sourceTaskSettings: settings })) };
}

/** MM2 has copied everything below 1200 (last sync 1199→5199, target log end 5200); the log holds 1000..1999. */
const before = makeFlowPartition({ sourceLogStart: 1000n, sourceLogEnd: 2000n, mm2Position: 1200n, targetLogEnd: 5200n, latestSync: { upstream: 1199n, downstream: 5199n } });
/**
 * Between the cycles offsets 1000..1499 were purged (log start 1500): MM2's position 1200 fell out of range, its
 * consumer reset to the log end 2000 and copied 2000..2049 (log end now 2050, target 5250).
 */
const after = makeFlowPartition({ sourceLogStart: 1500n, sourceLogEnd: 2050n, mm2Position: 2050n, targetLogEnd: 5250n, latestSync: { upstream: 2049n, downstream: 5249n } });
const syncsBefore = makeHistory([[1100, 5100], [1199, 5199]]);
const syncsAfter = makeHistory([[1100, 5100], [1199, 5199], [2000, 5200], [2049, 5249]]);

/** Every finding of a cycle as [type, first, last, count, exact, signal]. */
function describeAll(output: ReturnType<typeof runCycles>[number] | undefined) {
  return (output?.findings ?? []).map((f) => [
    f.type,
    f.evidence.firstLostOffset ?? f.evidence.firstSkippedOffset,
    f.evidence.lastLostOffset ?? f.evidence.lastSkippedOffset,
    f.evidence.lostCount ?? f.evidence.skippedCount,
    f.evidence.exact,
    f.evidence.detectedBy,
  ]);
}

describe("MM2_SKIPPED_BY_RESET", () => {
  it("reports what still existed as skipped on purpose and only the deleted offsets as DATA_LOSS (offset syncs)", () => {
    const [, second] = runCycles([
      { snapshot: snapshotWith(1, before, latest), history: syncsBefore },
      { snapshot: snapshotWith(2, after, latest), history: syncsAfter },
    ]);
    expect(describeAll(second)).toEqual([
      [FindingType.DATA_LOSS, "1200", "1499", "300", true, "offset-sync-gap"],
      [FindingType.MM2_SKIPPED_BY_RESET, "1500", "1999", "500", true, "offset-sync-gap"],
    ]);
    const [skip] = findingsOf(second, FindingType.MM2_SKIPPED_BY_RESET);
    expect(skip).toMatchObject({
      key: "MM2_SKIPPED_BY_RESET|east->west|orders|2|1500",
      severity: "warning",
      summary: "MM2 skipped 500 records of orders/2 on purpose (offsets 1500–1999): its consumer has auto.offset.reset=latest and resumed at the log end of east",
    });
  });

  it("estimates the split from Connect's positions when MM2 writes no offset syncs", () => {
    const [, second] = runCycles([
      { snapshot: snapshotWith(1, { ...before, latestSync: null }, syncsOff) },
      { snapshot: snapshotWith(2, { ...after, latestSync: null }, syncsOff) },
    ]);
    expect(describeAll(second)).toEqual([
      [FindingType.DATA_LOSS, "1200", "1499", "300", false, "position-jump"],
      [FindingType.MM2_SKIPPED_BY_RESET, "1500", "1999", "500", false, "position-jump"],
    ]);
  });

  it("raises no skip with MM2's default auto.offset.reset=earliest (control: the same gap is the deleted part only)", () => {
    const [, second] = runCycles([
      { snapshot: snapshotWith(1, before), history: syncsBefore },
      { snapshot: snapshotWith(2, after), history: syncsAfter },
    ]);
    expect(findingsOf(second, FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
  });

  it("raises nothing when MM2 kept up (a sync step without a gap), nor on a compacted topic", () => {
    const steady = makeFlowPartition({ sourceLogStart: 1000n, sourceLogEnd: 2050n, mm2Position: 2050n, targetLogEnd: 6050n, latestSync: { upstream: 2049n, downstream: 6049n } });
    const [, quiet] = runCycles([
      { snapshot: snapshotWith(1, before, latest), history: syncsBefore },
      { snapshot: snapshotWith(2, steady, latest), history: makeHistory([[1100, 5100], [1199, 5199], [2049, 6049]]) },
    ]);
    expect(quiet?.findings).toEqual([]);
    const [, compacted] = runCycles([
      { snapshot: snapshotWith(1, before, latest, "compact"), history: syncsBefore },
      { snapshot: snapshotWith(2, after, latest, "compact"), history: syncsAfter },
    ]);
    expect(findingsOf(compacted, FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
  });

  describe("when MM2 picks a partition up at its log end (replication from latest)", () => {
    /** The partition in the flow before MM2 copied anything: 1000..1999 exist, no position yet. */
    const waiting = makeFlowPartition({ sourceLogStart: 1000n, sourceLogEnd: 2000n, mm2Position: null, committedPosition: null, targetLogEnd: 0n, latestSync: null });
    /** MM2 began at the log end 2000 and copied 2000..2019 into an empty remote topic (first sync 2000→0). */
    const started = makeFlowPartition({ sourceLogStart: 1000n, sourceLogEnd: 2020n, mm2Position: 2020n, targetLogEnd: 20n, latestSync: { upstream: 2019n, downstream: 19n } });
    const firstSyncs = makeHistory([[2000, 0], [2019, 19]]);

    it("reports the records that existed and were never copied, once, exactly, from MM2's first offset sync", () => {
      const [, second, third] = runCycles([
        { snapshot: snapshotWith(1, waiting, latest) },
        { snapshot: snapshotWith(2, started, latest), history: firstSyncs },
        { snapshot: snapshotWith(3, { ...started, sourceLogEnd: 2030n, mm2Position: 2030n, targetLogEnd: 30n }, latest), history: firstSyncs },
      ]);
      expect(describeAll(second)).toEqual([[FindingType.MM2_SKIPPED_BY_RESET, "1000", "1999", "1000", true, "started-at-log-end"]]);
      expect(findingsOf(second, FindingType.MM2_SKIPPED_BY_RESET)[0]).toMatchObject({
        key: "MM2_SKIPPED_BY_RESET|east->west|orders|2|1000",
        summary:
          "MM2 never copied 1,000 records of orders/2 (offsets 1000–1999), on purpose: its consumer has auto.offset.reset=latest " +
          "and began at the log end of east when it picked the partition up",
      });
      // Seen once: the next cycle holds the same event (same key, range and first sighting) and adds none.
      expect(findingsOf(third, FindingType.MM2_SKIPPED_BY_RESET)).toEqual(findingsOf(second, FindingType.MM2_SKIPPED_BY_RESET));
    });

    it("sees it on a flow that appears with MM2 already copying (a connector created between two cycles)", () => {
      const other = makeSnapshot({ cycle: 1, flows: [] });
      const [, second] = runCycles([
        { snapshot: other },
        { snapshot: snapshotWith(2, started, latest), history: firstSyncs },
      ]);
      expect(describeAll(second)).toEqual([[FindingType.MM2_SKIPPED_BY_RESET, "1000", "1999", "1000", true, "started-at-log-end"]]);
    });

    it("stays quiet when MM2 began at the log start (earliest), on an empty partition, into a remote topic that held records, or after a restart", () => {
      const fromStart = makeFlowPartition({ sourceLogStart: 1000n, sourceLogEnd: 2020n, mm2Position: 1020n, targetLogEnd: 20n, latestSync: { upstream: 1019n, downstream: 19n } });
      const quiet = (history: ReturnType<typeof makeHistory>, now: FlowPartition, before: FlowPartition = waiting) =>
        runCycles([{ snapshot: snapshotWith(1, before, latest) }, { snapshot: snapshotWith(2, now, latest), history }])[1];
      expect(findingsOf(quiet(makeHistory([[1000, 0], [1019, 19]]), fromStart), FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
      const empty = { ...waiting, sourceLogStart: 2000n };
      expect(findingsOf(quiet(firstSyncs, { ...started, sourceLogStart: 2000n }, empty), FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
      expect(findingsOf(quiet(makeHistory([[2000, 500], [2019, 519]]), { ...started, targetLogEnd: 520n }), FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
      const [afterRestart] = runCycles([{ snapshot: snapshotWith(2, started, latest), history: firstSyncs }]);
      expect(findingsOf(afterRestart, FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
      // MM2's default (earliest) never skips on purpose, whatever the syncs say.
      const [, earliest] = runCycles([{ snapshot: snapshotWith(1, waiting) }, { snapshot: snapshotWith(2, started), history: firstSyncs }]);
      expect(findingsOf(earliest, FindingType.MM2_SKIPPED_BY_RESET)).toEqual([]);
    });
  });
});
