import { describe, expect, it } from "vitest";
import type { PartitionState } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeSnapshot, makeTopic, makeTopicConfigs, runCycles, T0 } from "./fixtures";

/** `ledger` at east: partition 0 as given, partition 1 healthy (ISR 1,2,3). */
const eastWith = (p0: Partial<PartitionState>, unclean = true, stale = false) =>
  makeCluster("east", {
    stale,
    reachable: !stale,
    topics: [
      makeTopic("ledger", [{ partition: 0, leader: 2, replicas: [2, 1, 3], ...p0 }, { partition: 1, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3] }], {
        configs: makeTopicConfigs({ uncleanLeaderElection: unclean }),
      }),
    ],
  });
const run = (...clusters: ReturnType<typeof eastWith>[]) =>
  runCycles(clusters.map((east, i) => ({ snapshot: makeSnapshot({ cycle: i + 1, clusters: [east, makeCluster("west")] }) })));

describe("NO_CLEAN_SUCCESSOR", () => {
  it("warns when the leader is alone in sync and no replica is eligible (KIP-966), naming what losing it does", () => {
    const [first] = run(eastWith({ isr: [2], eligibleLeaderReplicas: [] }));
    expect(findingsOf(first, FindingType.NO_CLEAN_SUCCESSOR)).toEqual([
      {
        key: "NO_CLEAN_SUCCESSOR|east|ledger",
        type: "NO_CLEAN_SUCCESSOR",
        severity: "warning",
        cluster: "east",
        topic: "ledger",
        partition: 0,
        summary:
          "ledger at east: 1 partition (0) can be led cleanly only by broker 2: no other replica is in sync or eligible (ELR); " +
          "if it is lost, an out-of-sync replica takes over (unclean leader election is enabled) and acknowledged records are lost",
        evidence: { partitions: 1, partitionIds: "0", leaders: "2", replicationFactor: 3, uncleanLeaderElection: true },
        observedAt: T0,
      },
    ]);
    const [offline] = run(eastWith({ isr: [2], eligibleLeaderReplicas: [] }, false));
    expect(findingsOf(offline, FindingType.NO_CLEAN_SUCCESSOR)[0]!.summary).toMatch(/if it is lost, the partition goes offline$/);
  });

  it("stays quiet while another replica is in sync or eligible, for a single-replica topic, and before ELR was read", () => {
    const quiet = [
      eastWith({ isr: [2, 1], eligibleLeaderReplicas: undefined }),
      // ISR shrank below min.insync.replicas cleanly: broker 1 stays electable.
      eastWith({ isr: [2], eligibleLeaderReplicas: [1] }),
      eastWith({ isr: [2], replicas: [2], eligibleLeaderReplicas: [] }),
      eastWith({ isr: [2] }),
    ];
    expect(run(...quiet).flatMap((o) => findingsOf(o, FindingType.NO_CLEAN_SUCCESSOR))).toEqual([]);
  });

  it("keeps the warning while the eligible leader replicas cannot be read or the cluster is stale", () => {
    const outputs = run(
      eastWith({ isr: [2], eligibleLeaderReplicas: [] }),
      eastWith({ isr: [2], eligibleLeaderReplicas: null }),
      eastWith({ isr: [2], eligibleLeaderReplicas: [] }, true, true),
      eastWith({ isr: [2, 1] }),
    );
    expect(outputs.map((o) => findingsOf(o, FindingType.NO_CLEAN_SUCCESSOR).map((f) => f.key))).toEqual([
      ["NO_CLEAN_SUCCESSOR|east|ledger"],
      ["NO_CLEAN_SUCCESSOR|east|ledger"],
      ["NO_CLEAN_SUCCESSOR|east|ledger"],
      [],
    ]);
  });
});
