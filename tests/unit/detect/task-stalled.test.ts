import { describe, expect, it } from "vitest";
import { createDetectorMemory, parseDetectorMemory } from "@/lib/detect/memory";
import { defaultThresholds } from "@/lib/config/thresholds";
import { FindingType } from "@/lib/detect/types";
import type { FlowPartition } from "@/lib/collector/types";
import { findingsOf, makeConnect, makeConnector, makeFlowPartition, makeSnapshot, makeTask, runCycles, T0, type Cycle } from "./fixtures";

/** MM2 sits at 100 while the source grows, one cycle per minute. */
function stuckCycles(overrides: Parameters<typeof makeSnapshot>[0] = {}): Cycle[] {
  return [200n, 300n, 400n].map((logEnd, i) => ({
    snapshot: makeSnapshot({ cycle: i + 1, partitions: [makeFlowPartition({ sourceLogEnd: logEnd, mm2Position: 100n })], ...overrides }),
    now: T0 + i * 65_000,
  }));
}

describe("TASK_STALLED", () => {
  it("reports a RUNNING flow whose position has not moved for stallAfterMs while the source grew", () => {
    const outputs = runCycles(stuckCycles());
    expect(findingsOf(outputs[1], FindingType.TASK_STALLED)).toEqual([]);
    const findings = findingsOf(outputs[2], FindingType.TASK_STALLED);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      key: "TASK_STALLED|east->west",
      severity: "critical",
      topic: "orders",
      partition: 2,
      summary: "MM2 (east->west) is RUNNING but has not copied anything from orders/2 for ~2 min while 300 records wait (auto.offset.reset=none after deleted records?)",
      evidence: { connector: "mm2-source", stalledPartitions: 1, partitions: "orders/2", stalledForMs: 130_000, pendingRecords: "300", stallAfterMs: 120_000 },
    });
    expect(outputs[2]?.memory.positions["east->west|orders|2"]).toEqual({ position: "100", movedAt: T0, logEndAtMove: "200", notRunningMs: 0, seenAt: T0 + 130_000 });
  });

  it("restarts the clock when the position moves", () => {
    const cycles = stuckCycles();
    const moved = { snapshot: makeSnapshot({ cycle: 4, partitions: [makeFlowPartition({ sourceLogEnd: 500n, mm2Position: 150n })] }), now: T0 + 200_000 };
    const outputs = runCycles([...cycles, moved]);
    expect(findingsOf(outputs[3], FindingType.TASK_STALLED)).toEqual([]);
    expect(outputs[3]?.memory.positions["east->west|orders|2"]).toEqual({ position: "150", movedAt: T0 + 200_000, logEndAtMove: "500", notRunningMs: 0, seenAt: T0 + 200_000 });
  });

  it("does not call records stalled that arrived after an idle spell, just before MM2 copies them", () => {
    // Seen in the soak (soak-tx/0): idle at 77 (log end 78, a commit marker) for 42 s around a worker
    // restart, then 3 new offsets at log end 81 not yet copied in the first cycle after the restart.
    const idle = [0, 1, 2].map((i) => ({ snapshot: makeSnapshot({ cycle: i + 1, partitions: [makeFlowPartition({ sourceLogEnd: 78n, mm2Position: 77n, lag: 0n })] }), now: T0 + i * 65_000 }));
    const arrived = { snapshot: makeSnapshot({ cycle: 4, partitions: [makeFlowPartition({ sourceLogEnd: 81n, mm2Position: 77n, lag: 2n })] }), now: T0 + 135_000 };
    const outputs = runCycles([...idle, arrived]);
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.TASK_STALLED))).toEqual([]);
    expect(outputs[3]?.memory.positions["east->west|orders|2"]).toEqual({ position: "77", movedAt: T0 + 130_000, logEndAtMove: "78", notRunningMs: 0, seenAt: T0 + 135_000 });
  });

  it("does not call an idle partition stalled when its source did not grow", () => {
    const idle = [0, 1, 2].map((i) => ({ snapshot: makeSnapshot({ cycle: i + 1, partitions: [makeFlowPartition({ sourceLogEnd: 100n, mm2Position: 100n })] }), now: T0 + i * 65_000 }));
    expect(runCycles(idle).flatMap((o) => findingsOf(o, FindingType.TASK_STALLED))).toEqual([]);
  });

  it("does not report a paused connector or one with a failed task (TASK_FAILED covers that)", () => {
    const paused = stuckCycles({ connect: [makeConnect([makeConnector({ state: "PAUSED" })])] });
    const failed = stuckCycles({ connect: [makeConnect([makeConnector({ tasks: [makeTask(0, { state: "FAILED" })] })])] });
    expect(findingsOf(runCycles(paused)[2], FindingType.TASK_STALLED)).toEqual([]);
    expect(findingsOf(runCycles(failed)[2], FindingType.TASK_STALLED)).toEqual([]);
  });

  it("does not count a pause: right after MM2 resumes, the records that waited through it are not stalled", () => {
    // Seen in the 60-minute soak: paused 60 s while records waited, then a critical TASK_STALLED in the
    // first cycle after the resume, before MM2 had published its new position.
    const paused = makeConnect([makeConnector({ state: "PAUSED", tasks: [makeTask(0, { state: "PAUSED" })] })]);
    const cycles = stuckCycles();
    const outputs = runCycles([
      cycles[0]!,
      { ...cycles[1]!, snapshot: { ...cycles[1]!.snapshot, connect: [paused] } },
      cycles[2]!,
      { snapshot: makeSnapshot({ cycle: 4, partitions: [makeFlowPartition({ sourceLogEnd: 500n, mm2Position: 100n })] }), now: T0 + 260_000 },
    ]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TASK_STALLED).length)).toEqual([0, 0, 0, 1]);
    // The 65 s up to the cycle that saw it paused are taken out: 260 s − 65 s.
    expect(findingsOf(outputs[3], FindingType.TASK_STALLED)[0]?.evidence.stalledForMs).toBe(195_000);
    expect(outputs[3]?.memory.positions["east->west|orders|2"]).toEqual({ position: "100", movedAt: T0, logEndAtMove: "200", notRunningMs: 65_000, seenAt: T0 + 260_000 });
  });

  it("takes out only the not-running time: a task status that flickers for one cycle does not restart the clock", () => {
    // One cycle of five sees the task UNASSIGNED (a rebalance): 10 s of 50 are not counted.
    const flicker = makeConnect([makeConnector({ tasks: [makeTask(0, { state: "UNASSIGNED" })] })]);
    const cycles = [0, 1, 2, 3, 4, 5].map((i) => ({
      snapshot: makeSnapshot({ cycle: i + 1, partitions: [makeFlowPartition({ sourceLogEnd: 200n + BigInt(i) * 10n, mm2Position: 100n })], ...(i === 2 ? { connect: [flicker] } : {}) }),
      now: T0 + i * 10_000,
    }));
    const outputs = runCycles(cycles, { ...defaultThresholds, stallAfterMs: 40_000 });
    expect(outputs.map((o) => findingsOf(o, FindingType.TASK_STALLED).length)).toEqual([0, 0, 0, 0, 0, 1]);
    expect(findingsOf(outputs[5], FindingType.TASK_STALLED)[0]?.evidence.stalledForMs).toBe(40_000);
  });

  it("does not count the time its Connect worker did not answer (killed and restarting), and gives no verdict then", () => {
    // Seen in the 60-minute soak: a worker SIGKILLed and restarted in 77 s under load, then a critical
    // TASK_STALLED for 22 partitions in the first cycles after it answered again.
    const down = makeConnect([makeConnector()], { reachable: false, error: "connect ECONNREFUSED" });
    const cycles = stuckCycles();
    const outputs = runCycles([
      cycles[0]!,
      { ...cycles[1]!, snapshot: { ...cycles[1]!.snapshot, connect: [down] } },
      { ...cycles[2]!, snapshot: { ...cycles[2]!.snapshot, connect: [down] } },
      { snapshot: makeSnapshot({ cycle: 4, partitions: [makeFlowPartition({ sourceLogEnd: 500n, mm2Position: 100n })] }), now: T0 + 200_000 },
      { snapshot: makeSnapshot({ cycle: 5, partitions: [makeFlowPartition({ sourceLogEnd: 600n, mm2Position: 100n })] }), now: T0 + 300_000 },
    ]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TASK_STALLED).length)).toEqual([0, 0, 0, 0, 1]);
    // The 130 s up to the two cycles that found Connect down are taken out: 300 s − 130 s.
    expect(findingsOf(outputs[4], FindingType.TASK_STALLED)[0]?.evidence.stalledForMs).toBe(170_000);
  });

  it("takes out a worker outage also while the partition's own data was unknown (60-minute soak, seed 2028)", () => {
    // soak-tx/1: idle at 1244 (lag 0) when the worker was SIGKILLed; its position was unreadable in
    // the five cycles the worker was down; in the first cycle after, 28 records waited at 1244.
    const down = makeConnect([makeConnector()], { reachable: false, error: "connect ECONNREFUSED" });
    const unknown = { reason: "Connect offsets unreadable", dataAt: T0 };
    const partition = (lag: bigint, extra: Partial<FlowPartition> = {}) =>
      makeFlowPartition({ sourceLogEnd: 1245n + lag, mm2Position: 1244n, lag, ...extra });
    const cycles: Cycle[] = [
      { snapshot: makeSnapshot({ cycle: 1, partitions: [partition(0n)] }), now: T0 },
      ...[1, 2, 3, 4, 5].map((i) => ({
        snapshot: makeSnapshot({ cycle: i + 1, connect: [down], partitions: [partition(BigInt(i) * 5n, { unknown, mm2Position: null })] }),
        now: T0 + i * 5_300,
      })),
      { snapshot: makeSnapshot({ cycle: 7, partitions: [partition(28n)] }), now: T0 + 36_900 },
    ];
    const outputs = runCycles(cycles, { ...defaultThresholds, stallAfterMs: 30_000 });
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.TASK_STALLED))).toEqual([]);
    // 5 × 5.3 s down are taken out; 36.9 s − 26.5 s = 10.4 s counted.
    expect(outputs[6]?.memory.positions["east->west|orders|2"]).toEqual({ position: "1244", movedAt: T0, logEndAtMove: "1245", notRunningMs: 26_500, seenAt: T0 + 36_900 });
  });

  it("does not count the time its connector was deleted (deleted and re-created under its name)", () => {
    const cycles = stuckCycles();
    const outputs = runCycles([
      cycles[0]!,
      { ...cycles[1]!, snapshot: { ...cycles[1]!.snapshot, connect: [makeConnect([])] } },
      cycles[2]!,
    ]);
    expect(findingsOf(outputs[2], FindingType.TASK_STALLED)).toEqual([]);
    expect(outputs[2]?.memory.positions["east->west|orders|2"]?.notRunningMs).toBe(65_000);
  });

  it("reads marks persisted before the not-running time was kept", () => {
    const parsed = parseDetectorMemory({ ...createDetectorMemory(), positions: { k: { position: "5", movedAt: T0, logEndAtMove: "9" } } });
    expect(parsed.error).toBeNull();
    expect(parsed.memory.positions.k).toEqual({ position: "5", movedAt: T0, logEndAtMove: "9", notRunningMs: 0, seenAt: T0 });
  });

  it("still reports when the connector state is unknown (no Connect data)", () => {
    const outputs = runCycles(stuckCycles({ connect: [] }));
    expect(findingsOf(outputs[2], FindingType.TASK_STALLED).map((f) => f.evidence.connector)).toEqual(["mm2-source"]);
  });
});
