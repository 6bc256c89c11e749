import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countPartitionArraysMade, readFlowPartition } from "@/lib/collector/flow-rows";
import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { createDetectorMemory, type Finding, FindingType, type RuleMemory, rules, runRules, Severity, type StatelessRule } from "@/lib/detect";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { forEachFreshPartition, listFreshFlowPartitions } from "@/lib/detect/snapshot-views";
import { readSnapshotFixture } from "@/scripts/bench/snapshot-fixture";
import { createSyntheticWorld, cycleMs, snapshotCycle } from "@/scripts/bench/synthetic-world";
import { FLOW, makeFlowPartition, makeSnapshot, makeStaleCluster } from "./fixtures";

/**
 * THE EXAMPLE OF docs/development.md "Add an alert": a rule, registered, judged over hand-built snapshots.
 *
 * A partition MM2 copies more than 500 records behind its source log end — a cut-down REPLICATION_LAG (the real rule,
 * lib/detect/replication-lag.ts, also weighs time and the flow's RPO). A level rule: it holds while MM2 is behind.
 * It judges fresh partitions only (forEachFreshPartition: both clusters read this cycle, no read of the partition
 * failed); the engine carries its finding while the partition is unknown (`unknown: "snapshot"`). It reads the flow's
 * columns, not `flow.partitions`: that array is made on demand, an object per partition, and no rule may make it
 * every cycle (tests/unit/pipeline/flow-partitions-unmade.test.ts; the last test here proves the example does not).
 */
const behindRecords = 500n;
const exampleRule: StatelessRule = {
  id: "example-partition-behind",
  types: [FindingType.REPLICATION_LAG],
  unknown: "snapshot",
  run: ({ detector, now }) => {
    const findings: Finding[] = [];
    forEachFreshPartition(detector.current, (flow, columns, at, slot) => {
      // The numbers first, by slot (NaN: unknown, never over): a partition in step ends here, no object made. A slot
      // listed twice holds its last position's numbers: a flow with duplicates judges each position's own object.
      const ahead = columns.sourceLogEnd[slot]! - columns.mm2Position[slot]!;
      if (!columns.duplicates && !(ahead > Number(behindRecords))) return;
      const p = readFlowPartition(flow, at); // this one partition's object, exact, for its finding
      if (p.mm2Position === null || p.sourceLogEnd === null || p.sourceLogEnd - p.mm2Position <= behindRecords) return;
      const behind = p.sourceLogEnd - p.mm2Position;
      findings.push({
        key: `${FindingType.REPLICATION_LAG}|${flow.id}|${p.topic}|${p.partition}|example`,
        type: FindingType.REPLICATION_LAG,
        severity: Severity.WARNING,
        flow: flow.id,
        cluster: flow.source,
        topic: p.topic,
        partition: p.partition,
        summary: `MM2 is ${behind} records behind on ${p.topic}/${p.partition} of ${flow.id} (threshold ${behindRecords})`,
        evidence: { behindRecords: behind.toString(), thresholdRecords: behindRecords.toString() },
        observedAt: now,
      });
    });
    return { findings };
  },
};

/**
 * The example's registry. In lib/detect/rules.ts a rule is one more line of the list; here it replaces the real
 * REPLICATION_LAG rule (each finding type has one rule: the engine refuses two).
 */
const registry = rules.map((rule) => (rule.id === "replication-lag" ? exampleRule : rule));

/** Runs the registry over consecutive snapshots as the pipeline does, threading the memory; the example's findings. */
function runExample(snapshots: Snapshot[], history: CollectorHistory = { offsetSyncs: new Map() }): Finding[][] {
  let memory: RuleMemory = { ...createDetectorMemory(), checkpointWatch: new CheckpointWatchState() };
  let previous: Snapshot | null = null;
  return snapshots.map((current) => {
    const input = { previous, current, history, now: current.takenAt, thresholds: defaultThresholds, memory };
    const output = runRules(input, registry);
    [memory, previous] = [output.memory, current];
    return output.findings.filter((f) => f.key.endsWith("|example"));
  });
}

describe("example rule (docs/development.md \"Add an alert\")", () => {
  it("fires while MM2 is behind, is carried while the source cannot be read, and resolves once MM2 caught up", () => {
    const behind = makeFlowPartition({ sourceLogEnd: 2000n, mm2Position: 1200n });
    const caughtUp = makeFlowPartition({ sourceLogEnd: 2000n, mm2Position: 2000n });
    const [fired, unreadable, resolved] = runExample([
      makeSnapshot({ cycle: 1, partitions: [behind] }),
      // East did not answer: its data is carried over, so the rule judges nothing — and the finding is not dropped.
      makeSnapshot({ cycle: 2, partitions: [caughtUp], east: makeStaleCluster("east") }),
      makeSnapshot({ cycle: 3, partitions: [caughtUp] }),
    ]);
    expect(fired!.map((f) => [f.key, f.severity, f.evidence.behindRecords, f.summary])).toEqual([
      [`REPLICATION_LAG|${FLOW}|orders|2|example`, "warning", "800", `MM2 is 800 records behind on orders/2 of ${FLOW} (threshold 500)`],
    ]);
    expect(unreadable).toEqual(fired);
    expect(resolved).toEqual([]);
  });

  it("stays quiet on a partition MM2 keeps up with (its look-alike: a busy topic with a small, moving lag)", () => {
    const at = (cycle: number) => makeFlowPartition({ sourceLogEnd: 1000n * BigInt(cycle), mm2Position: 1000n * BigInt(cycle) - 400n });
    const busy = [1, 2, 3].map((cycle) => makeSnapshot({ cycle, partitions: [at(cycle)] }));
    expect(runExample(busy)).toEqual([[], [], []]);
  });

  it("is refused beside the real REPLICATION_LAG rule: one rule per finding type", () => {
    const twice = [...rules, exampleRule];
    const memory: RuleMemory = { ...createDetectorMemory(), checkpointWatch: new CheckpointWatchState() };
    const current = makeSnapshot();
    const input = { previous: null, current, history: { offsetSyncs: new Map() }, now: current.takenAt, thresholds: defaultThresholds, memory };
    expect(() => runRules(input, twice)).toThrow("rules replication-lag and example-partition-behind both emit REPLICATION_LAG");
  });

  it("is the rule docs/development.md shows, word for word", () => {
    const doc = readFileSync(path.resolve(__dirname, "../../../docs/development.md"), "utf8");
    const shown = /```ts\n(const behindRecords = [\s\S]*?)```/.exec(doc)?.[1];
    expect(shown).toBeDefined();
    expect(readFileSync(__filename, "utf8")).toContain(shown);
  });

  it("reads columns: over flows buildFlow made it makes no partitions array, and finds what flow.partitions shows", () => {
    const fixture = readSnapshotFixture();
    const world = createSyntheticWorld(fixture.snapshot, fixture.history.offsetSyncs, FLOW, 2_000);
    const snapshots: Snapshot[] = [];
    for (let cycle = 1; cycle <= 3; cycle++) {
      snapshots.push(snapshotCycle(world, cycle, world.base.takenAt + cycle * cycleMs, snapshots.at(-1) ?? null));
    }
    const made = countPartitionArraysMade();
    const found = runExample(snapshots, { offsetSyncs: world.syncs });
    expect(countPartitionArraysMade()).toBe(made);
    // The same question over the partition objects: it makes each flow's array, as flow-partitions-unmade.test.ts
    // would see if the example read them so.
    const expected = snapshots.map((snapshot) =>
      listFreshFlowPartitions(snapshot).flatMap(({ flow, partition: p }) =>
        p.mm2Position !== null && p.sourceLogEnd !== null && p.sourceLogEnd - p.mm2Position > behindRecords
          ? [[`${FindingType.REPLICATION_LAG}|${flow.id}|${p.topic}|${p.partition}|example`, (p.sourceLogEnd - p.mm2Position).toString()]]
          : [],
      ),
    );
    expect(countPartitionArraysMade()).toBe(made + snapshots.length);
    expect(found.map((findings) => findings.map((f) => [f.key, f.evidence.behindRecords]))).toEqual(expected);
    // The lagging partitions (1 in 100 of 2,000: 12,000 records behind) fire from the first cycle.
    expect(found.map((findings) => findings.length)).toEqual([20, 20, 20]);
  });
});
