import { describe, expect, it } from "vitest";
import type { PartitionState, TopicConfigs } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeCluster, makeSnapshot, makeTopic, makeTopicConfigs, runCycles, T0 } from "./fixtures";

const broker = (nodeId: number) => ({ nodeId, host: `b${nodeId}`, port: 9092, rack: null });

/** `ledger` at east (brokers 1–3 live unless `live` says otherwise): partition 0 as given, partition 1 healthy. */
const eastWith = (p0: Partial<PartitionState>, opts: { unclean?: boolean; stale?: boolean; minIsr?: number | null; live?: number[]; configs?: TopicConfigs | null } = {}) =>
  makeCluster("east", {
    stale: opts.stale ?? false,
    reachable: !(opts.stale ?? false),
    brokers: (opts.live ?? [1, 2, 3]).map(broker),
    topics: [
      makeTopic("ledger", [{ partition: 0, leader: 2, replicas: [2, 1, 3], ...p0 }, { partition: 1, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3] }], {
        configs: opts.configs === undefined ? makeTopicConfigs({ uncleanLeaderElection: opts.unclean ?? true, minInsyncReplicas: opts.minIsr ?? 1 }) : opts.configs,
      }),
    ],
  });
const run = (...clusters: ReturnType<typeof eastWith>[]) =>
  runCycles(clusters.map((east, i) => ({ snapshot: makeSnapshot({ cycle: i + 1, clusters: [east, makeCluster("west")] }) })));
const summaryOf = (east: ReturnType<typeof eastWith>) => findingsOf(run(east)[0]!, FindingType.NO_CLEAN_SUCCESSOR).map((f) => f.summary);

describe("NO_CLEAN_SUCCESSOR", () => {
  it("warns when the leader is alone in sync and no replica is eligible (KIP-966): with min.insync.replicas=1 it commits alone", () => {
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
          "ledger at east: 1 partition (0) can be led cleanly only by broker 2: no other replica is in sync and none is an eligible leader replica (ELR); " +
          "with min.insync.replicas=1 the leader alone acknowledges and commits every write, and Kafka keeps no eligible leader replicas then; " +
          "if it is lost, an out-of-sync replica takes over (unclean leader election is enabled) and acknowledged records are lost",
        evidence: {
          partitions: 1,
          partitionIds: "0",
          leaders: "2",
          replicationFactor: 3,
          uncleanLeaderElection: true,
          minInsyncReplicas: 1,
          underMinIsr: false,
          eligibleLeaderReplicasDown: "",
        },
        observedAt: T0,
      },
    ]);
  });

  it("below min.insync.replicas says the leader rejects acks=all writes and holds the high watermark; offline without unclean election", () => {
    const [out] = run(eastWith({ isr: [2], eligibleLeaderReplicas: [] }, { minIsr: 2, unclean: false }));
    const [finding] = findingsOf(out!, FindingType.NO_CLEAN_SUCCESSOR);
    expect(finding!.summary).toBe(
      "ledger at east: 1 partition (0) can be led cleanly only by broker 2: no other replica is in sync and none is an eligible leader replica (ELR); " +
        "the ISR is below min.insync.replicas=2: the leader rejects acks=all writes (NOT_ENOUGH_REPLICAS) and holds the high watermark, " +
        "so records written with acks=0/1 stay invisible to consumers and MM2; if it is lost, the partition goes offline",
    );
    expect([finding!.evidence.minInsyncReplicas, finding!.evidence.underMinIsr, finding!.evidence.uncleanLeaderElection]).toEqual([2, true, false]);
  });

  it("warns when the only eligible leader replicas are on brokers that are down (not in Metadata's broker list)", () => {
    const east = eastWith({ isr: [2], eligibleLeaderReplicas: [1, 3] }, { minIsr: 3, live: [2] });
    const [finding] = findingsOf(run(east)[0]!, FindingType.NO_CLEAN_SUCCESSOR);
    expect(finding!.summary).toBe(
      "ledger at east: 1 partition (0) can be led cleanly only by broker 2: no other replica is in sync and its eligible leader replicas (ELR) are down " +
        "(brokers 1, 3); the ISR is below min.insync.replicas=3: the leader rejects acks=all writes (NOT_ENOUGH_REPLICAS) and holds the high watermark, " +
        "so records written with acks=0/1 stay invisible to consumers and MM2; if it is lost, an out-of-sync replica takes over " +
        "(unclean leader election is enabled) and acknowledged records are lost",
    );
    expect(finding!.evidence.eligibleLeaderReplicasDown).toBe("1,3");
  });

  it("says nothing of min.insync.replicas while the topic's configs are unknown, and names every leader of several partitions", () => {
    const east = eastWith({ isr: [2], eligibleLeaderReplicas: [] }, { configs: null });
    expect(summaryOf(east)).toEqual([
      "ledger at east: 1 partition (0) can be led cleanly only by broker 2: no other replica is in sync and none is an eligible leader replica (ELR); " +
        "if it is lost, the partition goes offline",
    ]);
    const two = makeCluster("east", {
      brokers: [1, 2, 3].map(broker),
      topics: [
        makeTopic("ledger", [
          { partition: 0, leader: 2, replicas: [2, 1], isr: [2], eligibleLeaderReplicas: [] },
          { partition: 1, leader: 1, replicas: [1, 2], isr: [1], eligibleLeaderReplicas: [] },
        ], { configs: makeTopicConfigs({ minInsyncReplicas: 2 }) }),
      ],
    });
    expect(summaryOf(two)).toEqual([
      "ledger at east: 2 partitions (0, 1) can be led cleanly only by their leaders (brokers 1, 2): no other replica is in sync and none is an eligible " +
        "leader replica (ELR); the ISR is below min.insync.replicas=2: each leader rejects acks=all writes (NOT_ENOUGH_REPLICAS) and holds the high " +
        "watermark, so records written with acks=0/1 stay invisible to consumers and MM2; if one is lost, the partition goes offline",
    ]);
  });

  it("stays quiet while another replica is in sync or eligible on a live broker, for a single-replica topic, and before ELR was read", () => {
    const quiet = [
      eastWith({ isr: [2, 1], eligibleLeaderReplicas: undefined }),
      // ISR shrank below min.insync.replicas=2 by a clean shutdown of broker 1: it stays electable.
      eastWith({ isr: [2], eligibleLeaderReplicas: [1] }, { minIsr: 2 }),
      // One eligible replica down, one live: the live one takes over.
      eastWith({ isr: [2], eligibleLeaderReplicas: [1, 3] }, { minIsr: 3, live: [2, 3] }),
      eastWith({ isr: [2], replicas: [2], eligibleLeaderReplicas: [] }),
      eastWith({ isr: [2] }),
    ];
    expect(run(...quiet).flatMap((o) => findingsOf(o, FindingType.NO_CLEAN_SUCCESSOR))).toEqual([]);
  });

  it("keeps the warning while the eligible leader replicas cannot be read or the cluster is stale", () => {
    const outputs = run(
      eastWith({ isr: [2], eligibleLeaderReplicas: [] }),
      eastWith({ isr: [2], eligibleLeaderReplicas: null }),
      eastWith({ isr: [2], eligibleLeaderReplicas: [] }, { stale: true }),
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
