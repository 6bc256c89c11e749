import { describe, expect, it } from "vitest";
import { defaultMetricsOptions } from "@/lib/alerts/metric-series";
import { createMetrics } from "@/lib/alerts/metrics";
import type { RiskRecord } from "@/lib/alerts/types";
import { makeConnect, makeConnector, makeFlow, makeFlowPartition, makeSnapshot, makeStaleCluster, makeCluster, makeTask } from "../detect/fixtures";
import { makeAlert, T } from "./helpers";

const snapshot = makeSnapshot({
  cycle: 7,
  durationMs: 1_200,
  clusters: [makeCluster("east"), makeStaleCluster("west")],
  connect: [makeConnect([makeConnector({ tasks: [makeTask(0), makeTask(1, { state: "FAILED" })] })])],
  flows: [
    makeFlow({
      partitions: [makeFlowPartition({ partition: 0, sourceLogEnd: 1500n, mm2Position: 1000n }), makeFlowPartition({ partition: 2, sourceLogEnd: 900n, mm2Position: null })],
      heartbeat: { latestTimestamp: T - 2_500, latencyMs: 2_500 },
      errors: ["offset syncs unreadable"],
    }),
  ],
});

describe("metrics", () => {
  it("exposes lag, heartbeat, cluster, task state, alert, cycle and error series on its own registry", async () => {
    // orders/0 (500 behind) lags at a threshold of 500 records: it gets series of its own.
    const options = { ...defaultMetricsOptions, lagRecords: 500n };
    const metrics = createMetrics(T);
    const risk: RiskRecord = {
      key: "COMMIT_WITHOUT_LEADER_EPOCH|east|billing",
      type: "COMMIT_WITHOUT_LEADER_EPOCH",
      severity: "info",
      flow: null,
      cluster: "east",
      topic: null,
      partition: null,
      group: "billing",
      summary: "Group billing at east commits without a leader epoch on 3 partitions (1 topic)",
      evidence: {},
      firstSeen: T,
      lastSeen: T,
    };
    metrics.updateMetrics(
      snapshot,
      [makeAlert({ firstSeen: T + 1 }), makeAlert({ id: "b", key: "TASK_STALLED|east->west", type: "TASK_STALLED", state: "resolved", evidence: {} })],
      [risk, { ...risk, key: "COMMIT_WITHOUT_LEADER_EPOCH|east|audit" }],
      options,
    );
    const text = await metrics.renderMetrics();
    const expected = [
      'gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="0"} 500',
      'gapwatch_flow_lag_records{flow="east->west"} 500',
      'gapwatch_flow_topic_lag_records{flow="east->west",topic="orders"} 500',
      'gapwatch_flow_partition_series_omitted{flow="east->west"} 0',
      'gapwatch_flow_heartbeat_latency_seconds{flow="east->west"} 2.5',
      'gapwatch_cluster_up{cluster="east"} 1',
      'gapwatch_cluster_up{cluster="west"} 0',
      'gapwatch_connector_task_state{connect_cluster="connect-1",connector="mm2-source",task="1",state="FAILED"} 1',
      'gapwatch_connector_task_state{connect_cluster="connect-1",connector="mm2-source",task="1",state="RUNNING"} 0',
      'gapwatch_connector_task_state{connect_cluster="connect-1",connector="mm2-source",task="connector",state="RUNNING"} 1',
      'gapwatch_alerts{type="DATA_LOSS",severity="critical",state="firing"} 1',
      'gapwatch_alerts{type="TASK_STALLED",severity="critical",state="resolved"} 1',
      'gapwatch_risks{type="COMMIT_WITHOUT_LEADER_EPOCH",cluster="east"} 2',
      'gapwatch_lost_records_total{flow="east->west",topic="orders",partition="2"} 500',
      "gapwatch_collector_cycle_seconds_count 1",
      "gapwatch_collector_cycle_seconds_sum 1.2",
      'gapwatch_collector_errors_total{kind="cluster",source="west"} 1',
      'gapwatch_collector_errors_total{kind="flow",source="east->west"} 1',
    ];
    for (const line of expected) expect(text).toContain(line);
    expect(text).not.toContain('gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="2"}');
    // orders/0's oldest waiting record was not read: no age for it, and none for its topic.
    expect(text).not.toContain("gapwatch_flow_partition_lag_seconds{");
    expect(text).not.toContain("gapwatch_flow_topic_lag_seconds{");
    expect(text).not.toMatch(/^process_|^nodejs_/m);
  });

  it("counts a growing loss by its growth, each cycle once, and not again for losses from before start", async () => {
    const metrics = createMetrics(T);
    const old = makeAlert({ id: "old", topic: "audit", firstSeen: T - 60_000, evidence: { lostCount: "70" } });
    metrics.updateMetrics(snapshot, [old, makeAlert({ firstSeen: T + 1 })], []);
    metrics.updateMetrics(snapshot, [old, makeAlert({ firstSeen: T + 1, evidence: { lostCount: "700" } })], []);
    metrics.updateMetrics({ ...snapshot, cycle: 8 }, [{ ...old, evidence: { lostCount: "75" } }, makeAlert({ firstSeen: T + 1, evidence: { lostCount: "700" } })], []);
    const text = await metrics.renderMetrics();
    expect(text).toContain('gapwatch_lost_records_total{flow="east->west",topic="orders",partition="2"} 700');
    expect(text).toContain('gapwatch_lost_records_total{flow="east->west",topic="audit",partition="2"} 5');
    expect(text).toContain("gapwatch_collector_cycle_seconds_count 2");
    expect(text).toContain('gapwatch_collector_errors_total{kind="cluster",source="west"} 2');
  });

  it("counts malformed records per cluster and topic by what each cycle added, once per cycle", async () => {
    const metrics = createMetrics(T);
    metrics.updateMetrics({ ...snapshot, malformedRecords: { "west/mm2-offset-syncs.west.internal": 5 } }, [], []);
    metrics.updateMetrics({ ...snapshot, malformedRecords: { "west/mm2-offset-syncs.west.internal": 5 } }, [], []);
    metrics.updateMetrics({ ...snapshot, cycle: 8, malformedRecords: { "west/mm2-offset-syncs.west.internal": 7, "west/east.checkpoints.internal": 4 } }, [], []);
    const text = await metrics.renderMetrics();
    expect(text).toContain('gapwatch_malformed_records_total{cluster="west",topic="mm2-offset-syncs.west.internal"} 7');
    expect(text).toContain('gapwatch_malformed_records_total{cluster="west",topic="east.checkpoints.internal"} 4');
  });

  it("counts unknown partitions per flow and unknown groups per cluster, and drops an unknown partition's lag", async () => {
    const unread = { error: "OffsetFetch: coordinator 1: Request timed out after 30000 ms", dataAt: T - 10_000 };
    const group = (groupId: string, read: { error: string | null; dataAt: number | null }) => ({ groupId, state: "STABLE", protocolType: "consumer", groupType: "classic", members: 1, offsets: [], ...read });
    const partial = makeSnapshot({
      cycle: 9,
      clusters: [
        makeCluster("east", { groups: [group("billing", unread), group("audit", { error: null, dataAt: T }), group("ledger", unread)] }),
        makeStaleCluster("west", { groups: [group("mirror", { error: null, dataAt: T - 60_000 })] }),
      ],
      flows: [
        makeFlow({
          partitions: [
            makeFlowPartition({ partition: 0, sourceLogEnd: 1500n, mm2Position: 1000n, unknown: { reason: "west east.orders/0: ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: T - 10_000 } }),
            makeFlowPartition({ partition: 1, sourceLogEnd: 1500n, mm2Position: 1400n }),
          ],
        }),
      ],
    });
    const metrics = createMetrics(T);
    metrics.updateMetrics(partial, [], [], { ...defaultMetricsOptions, partitionSeriesTopics: [/^orders$/] });
    const text = await metrics.renderMetrics();
    expect(text).toContain('gapwatch_unknown_partitions{flow="east->west"} 1');
    expect(text).toContain('gapwatch_flow_topic_unknown_partitions{flow="east->west",topic="orders"} 1');
    expect(text).toContain('gapwatch_flow_topic_lag_records{flow="east->west",topic="orders"} 100');
    expect(text).toContain('gapwatch_unknown_groups{cluster="east"} 2');
    expect(text).toContain('gapwatch_unknown_groups{cluster="west"} 1');
    expect(text).toContain('gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="1"} 100');
    expect(text).not.toContain('gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="0"}');
  });

  it("drops series of topics and partitions that are gone", async () => {
    const metrics = createMetrics(T);
    metrics.updateMetrics(snapshot, [], [], { ...defaultMetricsOptions, lagRecords: 500n });
    expect(await metrics.renderMetrics()).toContain('gapwatch_flow_partition_lag_records{flow="east->west",topic="orders",partition="0"} 500');
    metrics.updateMetrics({ ...snapshot, cycle: 8, flows: [] }, [], [], { ...defaultMetricsOptions, lagRecords: 500n });
    const text = await metrics.renderMetrics();
    expect(text).not.toContain("gapwatch_flow_partition_lag_records{");
    expect(text).not.toContain("gapwatch_flow_topic_lag_records{");
    expect(text).not.toContain("gapwatch_flow_partition_series_omitted{");
  });

  it("exports gapwatch_blind_spots per cluster and kind while a read is denied, and no series when none is", async () => {
    const denied = makeSnapshot({
      clusters: [
        makeCluster("east", {
          denied: [
            { api: "OffsetFetch", resourceType: "group", resource: "billing", error: "GROUP_AUTHORIZATION_FAILED" },
            { api: "OffsetFetch", resourceType: "group", resource: "audit", error: "GROUP_AUTHORIZATION_FAILED" },
          ],
        }),
        makeCluster("west"),
      ],
      flows: [makeFlow({ errors: ["reading west/east.checkpoints.internal/0: TOPIC_AUTHORIZATION_FAILED"] })],
    });
    const metrics = createMetrics(T);
    metrics.updateMetrics(denied, [], []);
    const text = await metrics.renderMetrics();
    expect(text).toContain('gapwatch_blind_spots{cluster="east",kind="group-offsets"} 2');
    expect(text).toContain('gapwatch_blind_spots{cluster="west",kind="topic-records"} 1');
    metrics.updateMetrics(makeSnapshot(), [], []);
    expect((await metrics.renderMetrics()).split("\n").filter((l) => l.startsWith("gapwatch_blind_spots{"))).toEqual([]);
  });
});
