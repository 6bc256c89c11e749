import { describe, expect, it } from "vitest";
import type { CopierChange, FlowPartition, Snapshot } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import type { SourceTaskSettings } from "@/lib/mm2";
import { FLOW, T0, makeConnect, makeConnector, makeFlowPartition, makeHistory, makeSnapshot, runCycles } from "./fixtures";

/**
 * `orders`/2 of a flow split over mm2-a and mm2-b: mm2-a copied offsets 0–49 (position 50); between cycles 1 and 2 an
 * operator moved `orders` from mm2-a's filter to mm2-b's. mm2-b holds no offsets for it and starts from its
 * auto.offset.reset.
 */
const earliest: SourceTaskSettings = { offsetSyncsEnabled: true, autoOffsetReset: "earliest" };
const latest: SourceTaskSettings = { offsetSyncsEnabled: true, autoOffsetReset: "latest" };

function splitSnapshot(cycle: number, partition: FlowPartition, settingsOfB: SourceTaskSettings): Snapshot {
  const snapshot = makeSnapshot({ cycle, partitions: [partition], connect: [makeConnect([makeConnector({ name: "mm2-a" }), makeConnector({ name: "mm2-b" })])] });
  return {
    ...snapshot,
    flows: snapshot.flows.map((f) => ({
      ...f,
      connectors: { ...f.connectors, source: "mm2-a", sources: ["mm2-a", "mm2-b"] },
      sourceSettingsByConnector: { "mm2-a": earliest, "mm2-b": settingsOfB },
    })),
  };
}

const change: CopierChange = { from: "mm2-a", fromPosition: 50n, logStartAtChange: 0n, logEndAtChange: 50n, at: T0 + 10_000 };
const byA = makeFlowPartition({ sourceConnector: "mm2-a", sourceLogEnd: 50n, mm2Position: 50n, targetLogEnd: 50n, latestSync: { upstream: 49n, downstream: 49n } });

/** Every finding of the last cycle as [type, severity, first, last, count]. */
function describeLast(outputs: ReturnType<typeof runCycles>) {
  return (outputs.at(-1)?.findings ?? []).map((f) => [f.type, f.severity, f.evidence.firstAffectedOffset ?? f.evidence.firstRedeliveredOffset ?? null, f.evidence.lastAffectedOffset ?? null, f.evidence.affectedCount ?? null]);
}

describe("TOPIC_CHANGED_CONNECTOR", () => {
  it("reports mm2-b's re-copy from the log start (earliest) exactly, and no move by hand or redelivery", () => {
    // mm2-b copied 0–49 again (target 50–99), first sync (0, 50); it committed 50 by cycle 3.
    const recopying = { ...byA, sourceConnector: "mm2-b", copierChange: change, committedPosition: null, mm2Position: 50n, targetLogEnd: 100n, latestSync: { upstream: 0n, downstream: 50n } };
    const committed = { ...recopying, committedPosition: 50n, latestSync: { upstream: 49n, downstream: 99n } };
    const outputs = runCycles([
      { snapshot: splitSnapshot(1, byA, earliest), history: makeHistory([[0, 0], [49, 49]]) },
      { snapshot: splitSnapshot(2, recopying, earliest), history: makeHistory([[0, 0], [49, 49], [0, 50]]) },
      { snapshot: splitSnapshot(3, committed, earliest), history: makeHistory([[0, 0], [49, 49], [0, 50], [49, 99]]) },
    ]);
    expect(describeLast(outputs)).toEqual([[FindingType.TOPIC_CHANGED_CONNECTOR, "warning", "0", "49", "50"]]);
    const [finding] = outputs[2]!.findings;
    expect(finding).toMatchObject({
      key: `TOPIC_CHANGED_CONNECTOR|${FLOW}|orders|2|${T0 + 10_000}`,
      topic: "orders",
      partition: 2,
      evidence: { fromConnector: "mm2-a", toConnector: "mm2-b", autoOffsetReset: "earliest", outcome: "copied-again", previousPosition: "50" },
    });
    expect(finding!.summary).toBe(
      "orders moved from source connector mm2-a to mm2-b, which holds no offsets for it and starts from the log start " +
        "(auto.offset.reset=earliest): orders/2 offsets 0–49 are copied again (50 records twice on west)",
    );
  });

  it("without the change seen the same positions read as a move by hand and a redelivery (the rule is what tells them apart)", () => {
    const recopying = { ...byA, committedPosition: null, mm2Position: 50n, targetLogEnd: 100n, latestSync: { upstream: 0n, downstream: 50n } };
    const committed = { ...recopying, committedPosition: 10n, mm2Position: 50n, latestSync: { upstream: 49n, downstream: 99n } };
    const outputs = runCycles([
      { snapshot: splitSnapshot(1, byA, earliest), history: makeHistory([[0, 0], [49, 49]]) },
      { snapshot: splitSnapshot(2, recopying, earliest), history: makeHistory([[0, 0], [49, 49], [0, 50]]) },
      { snapshot: splitSnapshot(3, committed, earliest), history: makeHistory([[0, 0], [49, 49], [0, 50], [49, 99]]) },
    ]);
    expect(describeLast(outputs).map(([type]) => type).sort()).toEqual([FindingType.MM2_POSITION_MOVED, FindingType.MM2_REDELIVERY]);
  });

  it("reports mm2-b's skip to the log end (latest) from its first offset sync, exactly, and no reset skip or move", () => {
    // Records 50–79 were written while the filters changed; mm2-b started at the log end 80 and copied 80–89.
    const skipping = { ...byA, sourceConnector: "mm2-b", copierChange: { ...change, logEndAtChange: 80n }, sourceLogEnd: 90n, committedPosition: 90n, mm2Position: 90n, targetLogEnd: 60n, latestSync: { upstream: 80n, downstream: 50n } };
    const outputs = runCycles([
      { snapshot: splitSnapshot(1, byA, latest), history: makeHistory([[0, 0], [49, 49]]) },
      { snapshot: splitSnapshot(2, skipping, latest), history: makeHistory([[0, 0], [49, 49], [80, 50]]) },
    ]);
    expect(describeLast(outputs)).toEqual([[FindingType.TOPIC_CHANGED_CONNECTOR, "warning", "50", "79", "30"]]);
    expect(outputs[1]!.findings[0]!.summary).toBe(
      "orders moved from source connector mm2-a to mm2-b, which holds no offsets for it and has auto.offset.reset=latest: " +
        "it started orders/2 at the log end, 30 records never copied to west (offsets 50–79)",
    );
  });

  it("says nothing when the connector before had copied nothing of the partition", () => {
    const fresh = { ...byA, sourceConnector: "mm2-b", copierChange: { ...change, fromPosition: null } };
    const outputs = runCycles([{ snapshot: splitSnapshot(1, byA, earliest) }, { snapshot: splitSnapshot(2, fresh, earliest) }]);
    expect(describeLast(outputs)).toEqual([]);
  });
});
