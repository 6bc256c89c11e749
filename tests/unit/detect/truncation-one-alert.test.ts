import { describe, expect, it } from "vitest";
import type { FlowPartition, PreviousEpochEnd } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { FindingType, type DetectorOutput, type Finding } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeFlow, makeFlowPartition, makeHistory, makeSnapshot, makeTopic, runCycles, T0, type Cycle } from "./fixtures";

/**
 * One unclean election after an outage, as operators cause it: payments/0 at east held 0–49 (epoch 7, MM2 had
 * copied all 50, syncs 0→0 and 49→49); its leader died with the ISR shrunk to it, so the partition was OFFLINE
 * (epoch 8, no leader, no log end) for two cycles; then a stale replica holding 0–29 was elected uncleanly (epoch 9).
 * The collector's mark (epoch 7, high watermark 50) gives the new leader's end offset of epoch 7: 30.
 */
const mark: PreviousEpochEnd = { epoch: 7, endOffset: 30n, knownLogEnd: 50n, knownAt: T0 };
const before: [number, number][] = [[0, 0], [49, 49]];

interface Step {
  source: { leader: number | null; epoch: number; logEnd: bigint | null; previousEpochEnd?: PreviousEpochEnd };
  flow: Partial<FlowPartition>;
  syncs?: [number, number][];
}

function buildCycles(steps: readonly Step[], firstCycle = 1): Cycle[] {
  return steps.map(({ source, flow, syncs }, i) => {
    const p = { partition: 0, leader: source.leader, leaderEpoch: source.epoch, logEnd: source.logEnd, ...(source.previousEpochEnd ? { previousEpochEnd: source.previousEpochEnd } : {}) };
    const east = makeCluster("east", { topics: [makeTopic("payments", [p], { topicId: "id-payments" })] });
    const partition = makeFlowPartition({
      topic: "payments",
      partition: 0,
      targetTopic: "east.payments",
      sourceTopicId: "id-payments",
      sourceLeaderEpoch: source.epoch,
      sourceLogEnd: source.logEnd,
      latestSync: { upstream: 49n, downstream: 49n },
      ...flow,
    });
    return {
      snapshot: makeSnapshot({ cycle: firstCycle + i, clusters: [east, makeCluster("west")], flows: [makeFlow({ partitions: [partition] })] }),
      history: makeHistory([...before, ...(syncs ?? [])], "payments", 0),
    };
  });
}

const live: Step = { source: { leader: 2, epoch: 7, logEnd: 50n }, flow: { mm2Position: 50n, targetLogEnd: 50n } };
const offline: Step = {
  source: { leader: null, epoch: 8, logEnd: null },
  flow: { mm2Position: 50n, targetLogEnd: 50n, unknown: { reason: "east ListOffsets: LEADER_NOT_AVAILABLE", dataAt: T0 } },
};
/** The cycle that sees the election: the new leader holds 0–29 (log end 30). */
const elected: Step = { source: { leader: 1, epoch: 9, logEnd: 30n, previousEpochEnd: mark }, flow: { mm2Position: 50n, targetLogEnd: 50n } };
/** Later cycles on a quiet partition: Connect keeps MM2's position 50, past the new log end 30. */
const quietAfter: Step = { source: { leader: 1, epoch: 9, logEnd: 30n }, flow: { mm2Position: 50n, targetLogEnd: 50n } };
/** A busy partition a cycle later: refilled to 70; MM2 went back to 30 (sync 30→50, read only now) and is at 38. */
const rewound: Step = { source: { leader: 1, epoch: 9, logEnd: 70n }, flow: { mm2Position: 38n, targetLogEnd: 58n }, syncs: [[30, 50]] };
const caughtUp: Step = { source: { leader: 1, epoch: 9, logEnd: 70n }, flow: { mm2Position: 70n, targetLogEnd: 90n }, syncs: [[30, 50]] };

const others = [FindingType.TOPIC_RESET, FindingType.MM2_POSITION_MOVED, FindingType.MM2_REDELIVERY, FindingType.DATA_LOSS];
const keysOf = (output: DetectorOutput | undefined, type: Finding["type"]) => findingsOf(output, type).map((f) => f.key);
const truncationKey = "UNCLEAN_TRUNCATION|east|payments|0|epoch9";

describe("UNCLEAN_TRUNCATION after an outage, one event one alert", () => {
  it("reports the exact lost range from the mark kept through the OFFLINE cycles", () => {
    const outputs = runCycles(buildCycles([live, offline, offline, elected]));
    expect(outputs.slice(0, 3).flatMap((o) => keysOf(o, FindingType.UNCLEAN_TRUNCATION))).toEqual([]);
    const [finding] = findingsOf(outputs[3], FindingType.UNCLEAN_TRUNCATION);
    expect(finding).toMatchObject({
      key: truncationKey,
      evidence: {
        firstLostOffset: "30",
        lastLostOffset: "49",
        lostCount: "20",
        lostCountIsLowerBound: false,
        previousLogEnd: "50",
        previousLogEndSeenAt: T0,
        previousLeaderEpoch: 7,
        newLeaderEpoch: 9,
        // MM2's position while the partition was OFFLINE: it had copied all of them.
        copiedByMm2: "east->west: 30–49",
        copiedLostOnTarget: "east->west: east.payments 30–49",
      },
    });
  });

  it("a quiet partition: MM2's position past the new log end is the truncation, not a TOPIC_RESET, for as long as it lasts", () => {
    // Events are held 25 s after last seen; the truncation is seen again while MM2 has not passed offset 30.
    const thresholds = { ...defaultThresholds, eventHoldMs: 25_000 };
    const outputs = runCycles(buildCycles([live, offline, offline, elected, quietAfter, quietAfter, quietAfter, quietAfter, quietAfter]), thresholds);
    expect(outputs.slice(3).map((o) => keysOf(o, FindingType.UNCLEAN_TRUNCATION))).toEqual(Array.from({ length: 6 }, () => [truncationKey]));
    expect(outputs.flatMap((o) => others.flatMap((type) => keysOf(o, type)))).toEqual([]);
    // Nothing new from MM2: its reaction stays pending.
    expect(findingsOf(outputs[8], FindingType.UNCLEAN_TRUNCATION)[0]!.evidence.mm2AfterTruncation).toBe("east->west: not past the truncation yet");
    // The same cycles without the truncation known: MM2's position stays past the log end, a reset.
    const unexplained = runCycles(buildCycles([quietAfter, quietAfter], 5));
    expect(findingsOf(unexplained[1], FindingType.TOPIC_RESET).map((f) => f.evidence.detectedBy)).toEqual(["position-beyond-log-end"]);
  });

  it("a busy partition: MM2's rewind read a cycle later is neither a redelivery nor a move back; the event then expires as usual", () => {
    const thresholds = { ...defaultThresholds, eventHoldMs: 25_000 };
    const outputs = runCycles(buildCycles([live, offline, offline, elected, rewound, caughtUp, caughtUp, caughtUp, caughtUp]), thresholds);
    expect(outputs.flatMap((o) => others.flatMap((type) => keysOf(o, type)))).toEqual([]);
    // Seen at cycle 4, and at 5, where MM2's rewind is read (at 38 it has passed 30: no more sightings); the event
    // then expires 25 s later, as any event.
    expect(outputs.slice(3).map((o) => keysOf(o, FindingType.UNCLEAN_TRUNCATION).length)).toEqual([1, 1, 1, 1, 0, 0]);
    // MM2's reaction, pending when the election was seen, is judged again when the rewind is read.
    const [first] = findingsOf(outputs[3], FindingType.UNCLEAN_TRUNCATION);
    const [judged] = findingsOf(outputs[4], FindingType.UNCLEAN_TRUNCATION);
    expect(first!.evidence.mm2AfterTruncation).toBe("east->west: not past the truncation yet");
    expect(judged!.evidence).toMatchObject({
      mm2AfterTruncation: "east->west: rewound to 30",
      reusedOffsetsCopied: "east->west: 30–37 as east.payments 50–57",
      reusedOffsetsCopiedCount: "8",
      seenAt: first!.evidence.seenAt,
    });
    expect(judged!.summary).toBe(
      first!.summary.replace(
        "; MM2 has not copied past the truncation yet",
        "; MM2 then went back to offset 30 and copied the 8 new records at offsets 30–37 too, as east.payments 50–57: west holds both versions of offsets 30–37",
      ),
    );
    expect(judged!.key).toBe(truncationKey);
    // The same rewind without the truncation known: a second copy of 30–49, and a move back by hand.
    const unexplained = runCycles(buildCycles([quietAfter, rewound], 5));
    expect(findingsOf(unexplained[1], FindingType.MM2_REDELIVERY).map((f) => [f.evidence.firstDuplicateOffset, f.evidence.lastDuplicateOffset])).toEqual([["30", "49"]]);
    expect(findingsOf(unexplained[1], FindingType.MM2_POSITION_MOVED).map((f) => f.evidence.direction)).toEqual(["back"]);
  });

  it("a move back below the divergence point is still a move by hand", () => {
    const below: Step = { ...rewound, flow: { mm2Position: 20n, targetLogEnd: 50n }, syncs: [] };
    const outputs = runCycles(buildCycles([live, elected, below]));
    expect(findingsOf(outputs[2], FindingType.MM2_POSITION_MOVED).map((f) => [f.evidence.direction, f.evidence.newPosition])).toEqual([["back", "20"]]);
  });
});
