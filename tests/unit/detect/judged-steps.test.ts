import { describe, expect, it } from "vitest";
import { flowPartitionKey, type OffsetSyncPoint } from "@/lib/collector/types";
import {
  findSourceTopic,
  findTopic,
  hasNewSyncStep,
  isSourceCompacted,
  listJudgedFlows,
  readPartitionView,
  StepKind,
} from "@/lib/detect/snapshot-views";
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { FLOW, makeFlowPartition, makeSnapshot, makeTopic, makeTopicConfigs } from "./fixtures";

const key = flowPartitionKey(FLOW, "orders", 2);

/** The judged flow of two cycles of orders/2 with these new syncs ([upstream, downstream] pairs). */
function judge(syncs: [number, number][]) {
  const points: OffsetSyncPoint[] = syncs.map(([u, d]) => ({ upstream: BigInt(u), downstream: BigInt(d) }));
  const previous = makeSnapshot({ cycle: 1 });
  const current = makeSnapshot({ cycle: 2 });
  const [judged] = listJudgedFlows(current, previous, new Map([[key, points]]));
  return { judged: judged!, slot: judged!.slots[0]! };
}

describe("new sync steps by kind (what the event rules over syncs read first)", () => {
  it("marks no kind for steps that advance as many offsets upstream as downstream (MM2 copying on)", () => {
    const { judged, slot } = judge([[100, 50], [200, 150], [300, 250]]);
    expect(judged.stepped[slot]).toBe(1);
    for (const kind of Object.values(StepKind)) expect(hasNewSyncStep(judged, slot, kind)).toBe(false);
  });

  it("marks an upstream gap where upstream advanced more than downstream (listUpstreamGaps)", () => {
    const { judged, slot } = judge([[100, 50], [300, 150]]);
    expect(hasNewSyncStep(judged, slot, StepKind.UPSTREAM_GAP)).toBe(true);
    expect(hasNewSyncStep(judged, slot, StepKind.DOWNSTREAM_BACK)).toBe(false);
    expect(hasNewSyncStep(judged, slot, StepKind.RECOPY)).toBe(false);
  });

  it("marks a downstream step back or standing still while upstream did not go back (listDownstreamTruncations)", () => {
    const back = judge([[100, 50], [150, 40]]);
    expect(hasNewSyncStep(back.judged, back.slot, StepKind.DOWNSTREAM_BACK)).toBe(true);
    const still = judge([[100, 50], [150, 50]]);
    expect(hasNewSyncStep(still.judged, still.slot, StepKind.DOWNSTREAM_BACK)).toBe(true);
    // A repeat of the same sync is not a step back.
    const repeat = judge([[100, 50], [100, 50]]);
    expect(repeat.judged.stepped[repeat.slot]).toBe(1);
  });

  it("marks a re-copy where downstream advanced more than upstream, also after upstream went back (findRedeliveries)", () => {
    const more = judge([[100, 50], [120, 90]]);
    expect(hasNewSyncStep(more.judged, more.slot, StepKind.RECOPY)).toBe(true);
    const back = judge([[100, 50], [80, 60]]);
    expect(hasNewSyncStep(back.judged, back.slot, StepKind.RECOPY)).toBe(true);
    expect(hasNewSyncStep(back.judged, back.slot, StepKind.UPSTREAM_GAP)).toBe(false);
  });

  it("leaves a partition with a single new sync (no step) unmarked", () => {
    const { judged, slot } = judge([[100, 50]]);
    expect(judged.stepped[slot]).toBe(0);
  });
});

describe("a partition's source topic, looked up once per topic run", () => {
  it("answers as findTopic does for every partition of several runs, compacted or not", () => {
    const compact = makeTopicConfigs({ cleanupPolicy: "compact" });
    const partitions = [
      makeFlowPartition({ topic: "a", targetTopic: "east.a", partition: 0 }),
      makeFlowPartition({ topic: "a", targetTopic: "east.a", partition: 1 }),
      makeFlowPartition({ topic: "b", targetTopic: "east.b", partition: 0 }),
      makeFlowPartition({ topic: "gone", targetTopic: "east.gone", partition: 0 }),
      makeFlowPartition({ topic: "b", targetTopic: "east.b", partition: 1 }),
    ];
    const two = [{ partition: 0 }, { partition: 1 }];
    const east = { topics: [makeTopic("a", two), makeTopic("b", two, { configs: compact })] };
    const snapshot = makeSnapshot({ partitions, east });
    const flow = snapshot.flows[0]!;
    const columns = readFlowColumns(flow);
    const answers = flow.partitions.map((_, at) => {
      const view = readPartitionView(flow, columns, at);
      return [findSourceTopic(snapshot, view)?.name ?? null, isSourceCompacted(snapshot, view)];
    });
    expect(answers).toEqual([
      ["a", false],
      ["a", false],
      ["b", true],
      [null, null],
      ["b", true],
    ]);
    const view = readPartitionView(flow, columns, 4);
    expect(findSourceTopic(snapshot, view)).toBe(findTopic(snapshot, "east", "b"));
  });
});
