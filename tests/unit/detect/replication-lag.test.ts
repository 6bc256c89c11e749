import { describe, expect, it } from "vitest";
import { defaultThresholds } from "@/lib/config/thresholds";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlow, makeFlowPartition, makeSnapshot, runCycles, T0 } from "./fixtures";

const thresholds = { ...defaultThresholds, lagRecords: 1000, flowLagRecords: 5000, lagSeconds: 60 };

describe("REPLICATION_LAG", () => {
  it("reports a partition over the per-partition threshold and names the worst one", () => {
    const partitions = [
      makeFlowPartition({ partition: 0, sourceLogEnd: 1500n, mm2Position: 1000n }),
      makeFlowPartition({ partition: 2, sourceLogEnd: 3000n, mm2Position: 1200n }),
    ];
    const [output] = runCycles([{ snapshot: makeSnapshot({ partitions }) }], thresholds);
    expect(findingsOf(output, FindingType.REPLICATION_LAG)).toEqual([
      {
        key: "REPLICATION_LAG|east->west|records",
        type: "REPLICATION_LAG",
        severity: "warning",
        flow: "east->west",
        cluster: "east",
        summary: "east->west is 2,300 records behind (worst: orders/2 with 1,800; 1 partition over 1,000)",
        evidence: {
          totalLag: "2300",
          worstPartition: "orders/2",
          worstPartitionLag: "1800",
          partitionsOverThreshold: 1,
          lagRecordsThreshold: 1000,
          flowLagRecordsThreshold: 5000,
          unknownPositions: 0,
        },
        observedAt: T0,
      },
    ]);
  });

  it("reports a flow whose total lag is over the flow threshold although no partition is", () => {
    const partitions = [0, 1, 2, 3, 4, 5].map((partition) => makeFlowPartition({ partition, sourceLogEnd: 1900n, mm2Position: 1000n }));
    const [output] = runCycles([{ snapshot: makeSnapshot({ partitions }) }], thresholds);
    expect(findingsOf(output, FindingType.REPLICATION_LAG).map((f) => [f.key, f.evidence.totalLag, f.evidence.partitionsOverThreshold])).toEqual([
      ["REPLICATION_LAG|east->west|records", "5400", 0],
    ]);
  });

  it("reports heartbeat latency and the age of the oldest unreplicated record in time", () => {
    const partitions = [
      makeFlowPartition({ partition: 1, sourceLogEnd: 10n, mm2Position: 5n, oldestUnreplicatedTimestamp: T0 - 600_000 }),
      makeFlowPartition({ partition: 2, sourceLogEnd: 10n, mm2Position: 10n, oldestUnreplicatedTimestamp: T0 - 9_000_000 }),
    ];
    const flow = makeFlow({ partitions, heartbeat: { latestTimestamp: T0 - 90_000, latencyMs: 90_000 } });
    const [output] = runCycles([{ snapshot: makeSnapshot({ flows: [flow] }) }], thresholds);
    const findings = findingsOf(output, FindingType.REPLICATION_LAG);
    expect(findings.map((f) => [f.key, f.summary])).toEqual([
      ["REPLICATION_LAG|east->west|heartbeat", "east->west: MM2 heartbeats reach west ~2 min late (threshold ~1 min)"],
      ["REPLICATION_LAG|east->west|oldest-record", "east->west: the oldest record not yet copied (orders/1, offset 5) is ~10 min old"],
    ]);
    expect(findings[1]?.evidence).toEqual({ partition: "orders/1", offset: "5", recordTimestamp: T0 - 600_000, ageMs: 600_000, thresholdMs: 60_000 });
  });

  it("stays quiet under the thresholds and on stale data", () => {
    const lagging = [makeFlowPartition({ sourceLogEnd: 9000n, mm2Position: 1000n })];
    const outputs = runCycles(
      [
        { snapshot: makeSnapshot({ partitions: [makeFlowPartition({ sourceLogEnd: 1500n, mm2Position: 1000n })] }) },
        { snapshot: makeSnapshot({ cycle: 2, partitions: lagging, west: { reachable: false, stale: true } }) },
      ],
      thresholds,
    );
    expect(outputs.flatMap((o) => findingsOf(o, FindingType.REPLICATION_LAG))).toEqual([]);
  });
});
