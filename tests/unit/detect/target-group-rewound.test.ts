import { describe, expect, it } from "vitest";
import type { ConsumerGroupState } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlow, makeSnapshot, makeTopic, runCycles, T0 } from "./fixtures";

/** `billing` at west, committing on east.orders/2 (and /0 when given), read well this cycle. */
function makeGroup(members: number, offset: number, other: number | null = null): ConsumerGroupState {
  const offsets = [{ topic: "east.orders", partition: 2, offset: BigInt(offset), committedLeaderEpoch: -1 }];
  if (other !== null) offsets.unshift({ topic: "east.orders", partition: 0, offset: BigInt(other), committedLeaderEpoch: -1 });
  return { groupId: "billing", state: members > 0 ? "Stable" : "Empty", protocolType: "consumer", groupType: "classic", members, offsets, error: null, dataAt: T0 };
}

interface Options {
  sync?: boolean;
  topicId?: string;
  logEnd?: bigint;
}

/** Cycle `cycle` of east->west with MM2's checkpoint of billing on orders/2 at downstream 880 (and /0 at 400). */
function makeCycle(cycle: number, group: ConsumerGroupState, { sync = true, topicId = "id-w1", logEnd = 1000n }: Options = {}) {
  const remote = makeTopic("east.orders", [{ partition: 0, logEnd }, { partition: 2, logEnd }], { topicId });
  const checkpoints = [
    { group: "billing", topic: "orders", partition: 0, upstream: 410n, downstream: 400n, at: T0 },
    { group: "billing", topic: "orders", partition: 2, upstream: 900n, downstream: 880n, at: T0 },
  ];
  return { snapshot: makeSnapshot({ cycle, west: { topics: [remote], groups: [group] }, flows: [makeFlow({ checkpoints, syncGroupOffsets: sync })] }) };
}

describe("TARGET_GROUP_REWOUND", () => {
  it("is critical when MM2 moves an active group's offsets back to its checkpoints, with each partition's from and to", () => {
    const outputs = runCycles([makeCycle(1, makeGroup(2, 950, 450)), makeCycle(2, makeGroup(2, 880, 400))]);
    expect(findingsOf(outputs[0], FindingType.TARGET_GROUP_REWOUND)).toEqual([]);
    expect(findingsOf(outputs[1], FindingType.TARGET_GROUP_REWOUND).map((f) => [f.severity, f.cluster, f.group, f.summary, f.evidence])).toEqual([
      [
        "critical",
        "west",
        "billing",
        "MM2 rewound the active group billing at west (2 members) to its checkpoints on 2 partitions (east.orders/0 450→400, east.orders/2 950→880): " +
          "its consumers re-read 120 records (KAFKA-19794)",
        { partitions: "east.orders/0:450->400,east.orders/2:950->880", rewoundRecords: "120", members: 2, rewoundAt: T0 + 10_000 },
      ],
    ]);
  });

  it("keeps the event after the group moves on, as one alert", () => {
    const outputs = runCycles([makeCycle(1, makeGroup(1, 950)), makeCycle(2, makeGroup(1, 880)), makeCycle(3, makeGroup(1, 960))]);
    expect(outputs.map((o) => findingsOf(o, FindingType.TARGET_GROUP_REWOUND).map((f) => f.key))).toEqual([
      [],
      [`TARGET_GROUP_REWOUND|east->west|billing|${T0 + 10_000}`],
      [`TARGET_GROUP_REWOUND|east->west|billing|${T0 + 10_000}`],
    ]);
  });

  it("stays quiet on the look-alikes: an empty group MM2 may write, a consumer's own seek, a recreated topic, no offset sync", () => {
    const quiet = (cycles: ReturnType<typeof makeCycle>[]) => runCycles(cycles).flatMap((o) => findingsOf(o, FindingType.TARGET_GROUP_REWOUND));
    // Empty before (the operator's reset, or MM2's sync of an inactive group), active after.
    expect(quiet([makeCycle(1, makeGroup(0, 950)), makeCycle(2, makeGroup(2, 880))])).toEqual([]);
    // Active, but moved back to an offset that is no checkpoint of MM2's: the application sought back itself.
    expect(quiet([makeCycle(1, makeGroup(2, 950)), makeCycle(2, makeGroup(2, 870))])).toEqual([]);
    // The target topic was recreated between the cycles (another topic ID).
    expect(quiet([makeCycle(1, makeGroup(2, 950)), makeCycle(2, makeGroup(2, 880), { topicId: "id-w2" })])).toEqual([]);
    // The target log was truncated below the earlier offset.
    expect(quiet([makeCycle(1, makeGroup(2, 950)), makeCycle(2, makeGroup(2, 880), { logEnd: 900n })])).toEqual([]);
    // MM2 does not sync group offsets.
    expect(quiet([makeCycle(1, makeGroup(2, 950), { sync: false }), makeCycle(2, makeGroup(2, 880), { sync: false })])).toEqual([]);
  });

  it("stays quiet when MM2's checkpoints go backwards after the source group was rewound (Kafka's own MM2 test)", () => {
    // Cycle 2: the source group was reset back, MM2 checkpointed orders/2 at 300 -> 280; MM2 never rewinds the target
    // group (syncGroupOffset only moves forward), so it keeps 880, empty or with members.
    const rewound = (cycle: number, group: ConsumerGroupState) => {
      const { snapshot } = makeCycle(cycle, group);
      const checkpoints = [{ group: "billing", topic: "orders", partition: 2, upstream: 300n, downstream: 280n, at: T0 + 10_000 }];
      return { snapshot: { ...snapshot, flows: snapshot.flows.map((f) => ({ ...f, checkpoints })) } };
    };
    for (const members of [0, 2]) {
      const outputs = runCycles([makeCycle(1, makeGroup(members, 880)), rewound(2, makeGroup(members, 880)), rewound(3, makeGroup(members, 880))]);
      expect(outputs.flatMap((o) => findingsOf(o, FindingType.TARGET_GROUP_REWOUND))).toEqual([]);
    }
  });

  it("does not judge a group whose offsets could not be read this cycle", () => {
    const unread = { ...makeGroup(2, 880), error: "OffsetFetch: COORDINATOR_NOT_AVAILABLE" };
    expect(runCycles([makeCycle(1, makeGroup(2, 950)), makeCycle(2, unread)]).flatMap((o) => findingsOf(o, FindingType.TARGET_GROUP_REWOUND))).toEqual([]);
  });
});
