import { describe, expect, it } from "vitest";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlowPartition, makeSnapshot, makeTopicConfigs, runCycles, T0 } from "./fixtures";

const DAY = 86_400_000;
const NOW = T0 + 2 * 60_000; // 03:02 UTC
const DELETABLE_AT = T0 + 14 * 60_000; // 03:14 UTC
const atRisk = makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 2000n, mm2Position: 1200n, oldestUnreplicatedTimestamp: DELETABLE_AT - DAY });
const oneDay = makeTopicConfigs({ retentionMs: BigInt(DAY) });

describe("RETENTION_RISK", () => {
  it("forecasts when time retention deletes the oldest unreplicated record", () => {
    const [output] = runCycles([{ snapshot: makeSnapshot({ partitions: [atRisk], sourceConfigs: oneDay }), now: NOW }]);
    expect(findingsOf(output, FindingType.RETENTION_RISK)).toEqual([
      {
        key: "RETENTION_RISK|east->west|orders|2",
        type: "RETENTION_RISK",
        severity: "warning",
        flow: "east->west",
        cluster: "east",
        topic: "orders",
        partition: 2,
        summary: "orders/2: oldest unreplicated record (offset 1200) will be deleted by retention in ~12 min, at 03:14 UTC; 800 records waiting",
        evidence: {
          oldestUnreplicatedOffset: "1200",
          oldestUnreplicatedTimestamp: DELETABLE_AT - DAY,
          retentionMs: String(DAY),
          deletableAt: DELETABLE_AT,
          deletableInMs: 12 * 60_000,
          lag: "800",
          basis: "time",
        },
        observedAt: NOW,
      },
    ]);
  });

  it("is critical once the record is already eligible for deletion", () => {
    const [output] = runCycles([{ snapshot: makeSnapshot({ partitions: [atRisk], sourceConfigs: oneDay }), now: DELETABLE_AT + 60_000 }]);
    expect(findingsOf(output, FindingType.RETENTION_RISK).map((f) => [f.severity, f.summary])).toEqual([
      ["critical", "orders/2: oldest unreplicated record (offset 1200) may be deleted by retention any moment (eligible since 03:14 UTC); 800 records waiting"],
    ]);
  });

  it("stays quiet beyond the horizon, without lag, without the timestamp, for infinite retention and compact-only topics", () => {
    const cases = [
      { partitions: [atRisk], sourceConfigs: makeTopicConfigs({ retentionMs: BigInt(2 * DAY) }) },
      { partitions: [{ ...atRisk, mm2Position: 2000n, lag: 0n }], sourceConfigs: oneDay },
      { partitions: [{ ...atRisk, oldestUnreplicatedTimestamp: null }], sourceConfigs: oneDay },
      { partitions: [makeFlowPartition({ sourceLogEnd: 2000n, mm2Position: 1200n })], sourceConfigs: oneDay },
      { partitions: [atRisk], sourceConfigs: makeTopicConfigs({ retentionMs: null }) },
      { partitions: [atRisk], sourceConfigs: makeTopicConfigs({ retentionMs: BigInt(DAY), cleanupPolicy: "compact" }) },
      { partitions: [atRisk], sourceConfigs: null },
    ];
    for (const overrides of cases) {
      const [output] = runCycles([{ snapshot: makeSnapshot(overrides), now: NOW }]);
      expect(findingsOf(output, FindingType.RETENTION_RISK)).toEqual([]);
    }
  });
});
