import { describe, expect, it } from "vitest";
import { makeHealthySnapshot, readinessConnectors } from "./readiness-fixtures";
import type { Snapshot } from "@/lib/collector/types";
import { defaultThresholds } from "@/lib/config/thresholds";
import { assessFlowReadiness } from "@/lib/detect/readiness/verdict";
import type { ReadinessAlert, ReadinessInput } from "@/lib/detect/readiness-rule";
import { readinessRules } from "@/lib/detect/rules";
import type { FlowTranslation, GroupTranslation, TranslationTotals } from "@/lib/translation";
import {
  makeCluster,
  makeConnect,
  makeConnector,
  makeFlowPartition,
  makeTask,
  makeTopic,
  makeTopicConfigs,
  T0,
} from "./fixtures";

const totals = (over: Partial<TranslationTotals> = {}): TranslationTotals => ({
  partitions: 1,
  translated: 1,
  untranslatable: 0,
  rereadRecords: 0n,
  failoverReplayRecords: 0n,
  skippingPartitions: 0,
  groupLag: 0n,
  oldestCheckpointAgeMs: 5_000,
  ...over,
});

const group = (name: string, over: Partial<TranslationTotals> = {}): GroupTranslation => ({
  group: name,
  groupType: "classic",
  state: "Stable",
  members: 1,
  unknown: null,
  partitions: [],
  totals: totals(over),
});

function translationOf(groups: GroupTranslation[], over: Partial<FlowTranslation> = {}): FlowTranslation {
  return {
    flow: "east->west",
    source: "east",
    target: "west",
    at: T0,
    syncsLoaded: true,
    checkpointTiming: { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 },
    groups,
    excludedGroups: [],
    uncheckpointedGroups: [],
    totals: { ...totals(), groups: groups.length },
    ...over,
  };
}


function assess(snapshot: Snapshot, over: Partial<ReadinessInput> = {}) {
  return assessFlowReadiness({
    snapshot,
    flow: snapshot.flows[0]!,
    translation: translationOf([group("billing")]),
    alerts: [],
    thresholds: defaultThresholds,
    rpoSeconds: 300,
    now: snapshot.takenAt,
    ...over,
  });
}

const statusOf = (r: ReturnType<typeof assess>, id: string) => r.checks.find((c) => c.id === id);

/**
 * A firing DATA_LOSS alert of the flow, as the readiness cases name it: the facts lib/views gives the checks
 * (tests/unit/views/readiness.test.ts proves how lib/alerts' records become these).
 */
function alert(over: Partial<ReadinessAlert>): ReadinessAlert {
  return {
    id: "a1",
    type: "DATA_LOSS",
    flow: "east->west",
    cluster: "east",
    topic: "orders",
    partition: 2,
    group: null,
    summary: "300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)",
    evidence: {},
    firing: true,
    awaitingAttention: true,
    ...over,
  };
}

describe("failover readiness", () => {
  it("is ready when every check passes, and says what failing over costs", () => {
    const r = assess(makeHealthySnapshot());
    expect(r.verdict).toBe("ready");
    expect(r.checks.map((c) => [c.id, c.status])).toEqual([
      ["connectors", "ok"],
      ["topics", "ok"],
      ["configs", "ok"],
      ["lag", "ok"],
      ["alerts", "ok"],
      ["groups", "ok"],
      ["heartbeats", "ok"],
    ]);
    expect(r.cost).toEqual({ unreplicatedRecords: 0n, oldestUnreplicatedAgeMs: null, lostRecords: 0n, groups: [{ group: "billing", replayRecords: 0n, skippingPartitions: 0 }] });
  });

  it("is not ready when the source connector's task FAILED, degraded without a checkpoint connector", () => {
    const failed = [makeConnector({ tasks: [makeTask(0, { state: "FAILED" })] }), ...readinessConnectors.slice(1)];
    const r = assess(makeHealthySnapshot({ connect: [makeConnect(failed)] }));
    expect(r.verdict).toBe("not-ready");
    expect(statusOf(r, "connectors")).toMatchObject({ status: "not-ready", message: "mm2-source (source): task 0 FAILED" });
    const noCheckpoint = assess(makeHealthySnapshot({ connect: [makeConnect([readinessConnectors[0]!, readinessConnectors[2]!])] }));
    expect(noCheckpoint.verdict).toBe("degraded");
    expect(statusOf(noCheckpoint, "connectors")?.message).toBe("mm2-checkpoint (checkpoint): missing");
  });

  it("is unknown, never ready, while the Connect cluster does not answer", () => {
    const down = makeConnect(readinessConnectors, { reachable: false, error: "connect ECONNREFUSED", dataAt: T0 - 30_000 });
    const r = assess(makeHealthySnapshot({ connect: [down] }));
    expect(r.verdict).toBe("unknown");
    expect(statusOf(r, "connectors")?.message).toBe("Connect connect-1 did not answer (connect ECONNREFUSED; last read 30 s ago)");
  });

  it("reads a dedicated-mode MM2's connectors from its status topic, by class name", () => {
    const snapshot = makeHealthySnapshot({ connect: [] });
    const status = {
      topic: "mm2-status.east.internal",
      connectors: [makeConnector({ name: "MirrorSourceConnector" }), makeConnector({ name: "MirrorCheckpointConnector", tasks: [makeTask(0, { state: "UNASSIGNED" })] })],
      error: null,
    };
    const dedicated = { ...snapshot.flows[0]!, discoveredFrom: "dedicated-topics" as const, connectors: { connectCluster: null, source: null, sources: [], checkpoint: null, heartbeat: null }, dedicatedStatus: status };
    const r = assess({ ...snapshot, flows: [dedicated] });
    expect(statusOf(r, "connectors")).toMatchObject({ status: "degraded", message: "MirrorCheckpointConnector (checkpoint): task 0 UNASSIGNED (+1 more)" });
    expect(statusOf(r, "connectors")?.items.map((i) => i.text)).toEqual(["MirrorCheckpointConnector (checkpoint): task 0 UNASSIGNED", "MirrorHeartbeatConnector (heartbeat): missing"]);
    const unread = assess({ ...snapshot, flows: [{ ...dedicated, dedicatedStatus: { ...status, error: "dtgt: fetch failed" } }] });
    expect(statusOf(unread, "connectors")).toMatchObject({ status: "unknown", message: "dedicated-mode MM2: mm2-status.east.internal unreadable (dtgt: fetch failed)" });
  });

  it("is not ready when a topic is missing on the target or has another partition count (KAFKA-9981)", () => {
    const missing = assess(makeHealthySnapshot({ clusters: [makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }])] }), makeCluster("west")] }));
    expect(statusOf(missing, "topics")).toMatchObject({ status: "not-ready", message: "1 of 1 topics missing or different on west: east.orders missing on west" });
    const wider = makeTopic("east.orders", [{ partition: 0 }, { partition: 1 }]);
    const other = assess(makeHealthySnapshot({ clusters: [makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }])] }), makeCluster("west", { topics: [wider] })] }));
    expect(statusOf(other, "topics")?.message).toBe("1 of 1 topics missing or different on west: east.orders has 2 partitions, orders has 1");
  });

  it("judges each cycle's topic lists and partitions afresh over a sequence of cycles sharing lists", () => {
    const first = makeHealthySnapshot();
    const flow = first.flows[0]!;
    const east = first.clusters[0]!;
    expect(statusOf(assess(first), "topics")?.status).toBe("ok");
    // The next cycle keeps the flow's partition list but the target lost its topic.
    const lost = assess({ ...first, clusters: [east, makeCluster("west")], flows: [flow] });
    expect(statusOf(lost, "topics")?.message).toBe("1 of 1 topics missing or different on west: east.orders missing on west");
    // Then a second partition of orders (a new list) on an unchanged target list: the counts are the new list's.
    const grown = { ...flow, partitions: [...flow.partitions, makeFlowPartition({ partition: 3 })] };
    expect(statusOf(assess({ ...first, flows: [grown] }), "topics")?.message).toBe("1 of 1 topics missing or different on west: east.orders has 1 partitions, orders has 2");
    // A name listed twice: the first entry counts, as a scan finds it.
    const twice = makeCluster("west", { topics: [makeTopic("east.orders", [{ partition: 2 }]), makeTopic("east.orders", [{ partition: 0 }, { partition: 1 }])] });
    expect(statusOf(assess({ ...first, clusters: [east, twice], flows: [flow] }), "topics")?.status).toBe("ok");
  });

  it("is not ready when MM2's topic filter matches no topic", () => {
    const snapshot = makeHealthySnapshot();
    const r = assess({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [], topicsFilter: "payments-.*" }] });
    expect(statusOf(r, "topics")).toMatchObject({ status: "not-ready", message: "MM2's topic filter (payments-.*) matches no source topic" });
  });

  it("judges the target's settings against the source's: another cleanup.policy blocks, shorter retention degrades", () => {
    const withTarget = (configs: Parameters<typeof makeTopicConfigs>[0]) =>
      makeHealthySnapshot({
        clusters: [makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }])] }), makeCluster("west", { topics: [makeTopic("east.orders", [{ partition: 2 }], { configs: makeTopicConfigs(configs) })] })],
      });
    expect(statusOf(assess(withTarget({ cleanupPolicy: "compact" })), "configs")).toMatchObject({
      status: "not-ready",
      message: "1 setting weaker on west: east.orders: cleanup.policy=compact, source has delete",
    });
    expect(statusOf(assess(withTarget({ retentionMs: 86_400_000n })), "configs")).toMatchObject({
      status: "degraded",
      message: "1 setting weaker on west: east.orders: retention.ms=86400000, source keeps 604800000",
    });
    expect(statusOf(assess(withTarget({ cleanupPolicy: "delete", retentionMs: null })), "configs")?.status).toBe("ok");
  });

  it("degrades on a smaller max.message.bytes or a lower min.insync.replicas on the target, never on unread values", () => {
    const pair = (source: Parameters<typeof makeTopicConfigs>[0], target: Parameters<typeof makeTopicConfigs>[0]) =>
      makeHealthySnapshot({
        clusters: [
          makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }], { configs: makeTopicConfigs(source) })] }),
          makeCluster("west", { topics: [makeTopic("east.orders", [{ partition: 2 }], { configs: makeTopicConfigs(target) })] }),
        ],
      });
    expect(statusOf(assess(pair({ maxMessageBytes: 1_048_588 }, { maxMessageBytes: 4096 })), "configs")).toMatchObject({
      status: "degraded",
      message: "1 setting weaker on west: east.orders: max.message.bytes=4096, source accepts 1048588: larger records stop MM2's copy",
    });
    const both = statusOf(assess(pair({ maxMessageBytes: 2_000_000, minInsyncReplicas: 2 }, { maxMessageBytes: 1_048_588, minInsyncReplicas: 1 })), "configs");
    expect([both?.status, both?.items.map((i) => i.text)]).toEqual([
      "degraded",
      ["east.orders: max.message.bytes=1048588, source accepts 2000000: larger records stop MM2's copy", "east.orders: min.insync.replicas=1, source requires 2"],
    ]);
    // A larger limit or more required replicas on the target is safer; a limit not read (null/absent) is not compared.
    expect(statusOf(assess(pair({ maxMessageBytes: 4096, minInsyncReplicas: 1 }, { maxMessageBytes: 1_048_588, minInsyncReplicas: 2 })), "configs")?.status).toBe("ok");
    expect(statusOf(assess(pair({ maxMessageBytes: 1_048_588, minInsyncReplicas: 2 }, { maxMessageBytes: null, minInsyncReplicas: null })), "configs")?.status).toBe("ok");
  });

  it("is degraded when the oldest record not yet copied is older than the RPO", () => {
    const lagging = makeFlowPartition({ sourceLogEnd: 1500n, mm2Position: 1000n, oldestUnreplicatedTimestamp: T0 - 600_000 });
    const snapshot = makeHealthySnapshot();
    const r = assess({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [lagging] }] });
    expect(r.verdict).toBe("degraded");
    expect(statusOf(r, "lag")?.message).toBe("500 records not yet copied, the oldest 10 min old: beyond the RPO");
    expect(r.cost).toMatchObject({ unreplicatedRecords: 500n, oldestUnreplicatedAgeMs: 600_000 });
  });

  it("is unknown when a partition's data could not be read this cycle", () => {
    const unread = makeFlowPartition({ unknown: { reason: "west ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: T0 - 20_000 } });
    const snapshot = makeHealthySnapshot();
    const r = assess({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [unread] }] });
    expect(r.verdict).toBe("unknown");
    expect(statusOf(r, "lag")?.message).toBe("1 partition could not be read this cycle; 0 records not yet copied elsewhere");
  });

  it("is not ready while a DATA_LOSS alert of the flow is open (firing or awaiting attention), ready once not", () => {
    const second = alert({
      id: "a2",
      partition: 1,
      summary: "25 records of orders/1 were deleted at east before MM2 copied them (offsets 40–64)",
      evidence: { lostCount: "25" },
    });
    const first = alert({ evidence: { lostCount: "300" } });
    const firing = assess(makeHealthySnapshot(), { alerts: [first, second] });
    expect(firing.verdict).toBe("not-ready");
    expect(firing.cost.lostRecords).toBe(325n);
    expect(statusOf(firing, "alerts")).toMatchObject({
      message: "2 open: DATA_LOSS — 300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)",
      items: [
        { text: "DATA_LOSS: 300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)", ref: { kind: "alert", alert: first } },
        { text: "DATA_LOSS: 25 records of orders/1 were deleted at east before MM2 copied them (offsets 40–64)", ref: { kind: "alert", alert: second } },
      ],
    });
    // Stopped growing, not acknowledged: still open, its records still gone; but not counted as lost by a firing loss.
    const stopped = assess(makeHealthySnapshot(), { alerts: [alert({ firing: false, evidence: { lostCount: "300" } })] });
    expect(stopped.verdict).toBe("not-ready");
    expect(stopped.cost.lostRecords).toBe(0n);
    expect(statusOf(stopped, "alerts")?.message).toBe("1 open: DATA_LOSS — 300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)");
    expect(assess(makeHealthySnapshot(), { alerts: [alert({ firing: false, awaitingAttention: false })] }).verdict).toBe("ready");
    expect(assess(makeHealthySnapshot(), { alerts: [alert({ type: "TASK_FAILED", firing: false, awaitingAttention: false })] }).verdict).toBe("ready");
    // An OFFLINE partition blocks only on the target; another flow's loss does not count.
    expect(assess(makeHealthySnapshot(), { alerts: [alert({ type: "OFFLINE", flow: null, cluster: "west" })] }).verdict).toBe("not-ready");
    expect(assess(makeHealthySnapshot(), { alerts: [alert({ type: "OFFLINE", flow: null, cluster: "east" })] }).verdict).toBe("ready");
    expect(assess(makeHealthySnapshot(), { alerts: [alert({ flow: "west->east" })] }).verdict).toBe("ready");
  });

  it("is degraded by a costly alert of the flow, and by a firing CHECKPOINT_STALE on the groups", () => {
    const moved = alert({ type: "MM2_POSITION_MOVED", summary: "MM2's position on orders/2 moved back" });
    expect(statusOf(assess(makeHealthySnapshot(), { alerts: [moved] }), "alerts")).toMatchObject({
      status: "degraded",
      message: "1 open: MM2_POSITION_MOVED — MM2's position on orders/2 moved back",
    });
    const stale = alert({ id: "s1", type: "CHECKPOINT_STALE", group: "billing", topic: null, partition: null });
    expect(statusOf(assess(makeHealthySnapshot(), { alerts: [stale] }), "groups")).toMatchObject({
      status: "degraded",
      message: "billing: checkpoints stale",
      items: [{ text: "billing: checkpoints stale", ref: { kind: "alert", alert: stale } }],
    });
    const resolved = { ...stale, firing: false, awaitingAttention: false };
    expect(statusOf(assess(makeHealthySnapshot(), { alerts: [resolved] }), "groups")?.status).toBe("ok");
  });

  it("is degraded for groups MM2 does not checkpoint, that would skip records or re-read too many", () => {
    const r = assess(makeHealthySnapshot(), {
      translation: translationOf([group("billing", { skippingPartitions: 2 }), group("audit", { failoverReplayRecords: 25_000n })], {
        excludedGroups: ["etl"],
        uncheckpointedGroups: [{ group: "enricher", groupType: "streams", state: "Stable", members: 1, unknown: null, note: "", partitions: [] }],
      }),
    });
    expect(r.verdict).toBe("degraded");
    expect(statusOf(r, "groups")?.items.map((i) => i.text)).toEqual([
      "billing would skip records on 2 partition(s)",
      "audit would re-read 25,000 records",
      "etl: MM2's groups filter leaves it out (restarts from its reset policy after failover)",
      "enricher: a streams group, which MM2 does not checkpoint (restarts from its reset policy after failover)",
    ]);
    expect(statusOf(assess(makeHealthySnapshot(), { translation: null }), "groups")?.status).toBe("unknown");
  });

  it("is degraded when no heartbeat arrives", () => {
    const snapshot = makeHealthySnapshot();
    const r = assess({ ...snapshot, flows: [{ ...snapshot.flows[0]!, heartbeat: { latestTimestamp: null, latencyMs: null } }] });
    expect(statusOf(r, "heartbeats")).toMatchObject({ status: "degraded", message: "no heartbeat from east seen on west yet" });
  });

  it("names each item's evidence as a reference into the flow (lib/views makes it a link)", () => {
    const snapshot = makeHealthySnapshot();
    const filterless = assess({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [], topicsFilter: "payments-.*" }] });
    expect(statusOf(filterless, "topics")?.items).toEqual([{ text: "topic coverage", ref: { kind: "coverage" } }]);
    const noTarget = assess(makeHealthySnapshot({ clusters: [makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }])] }), makeCluster("west")] }));
    expect(statusOf(noTarget, "topics")?.items).toEqual([{ text: "east.orders missing on west", ref: { kind: "topic", topic: "orders" } }]);
    const failed = [makeConnector({ tasks: [makeTask(0, { state: "FAILED" })] }), ...readinessConnectors.slice(1)];
    expect(statusOf(assess(makeHealthySnapshot({ connect: [makeConnect(failed)] })), "connectors")?.items).toEqual([
      { text: "mm2-source (source): task 0 FAILED", ref: { kind: "connect" } },
    ]);
    const lagging = makeFlowPartition({ sourceLogEnd: 1500n, mm2Position: 1000n, oldestUnreplicatedTimestamp: T0 - 600_000 });
    const late = assess({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [lagging] }] });
    expect(statusOf(late, "lag")?.items).toEqual([{ text: "500 records not yet copied", ref: { kind: "flow" } }]);
    const skipping = assess(snapshot, { translation: translationOf([group("billing", { skippingPartitions: 2 })]) });
    expect(statusOf(skipping, "groups")?.items).toEqual([
      { text: "billing would skip records on 2 partition(s)", ref: { kind: "group", group: "billing" } },
    ]);
  });

  it("titles the lag check with the flow's RPO, and makes the content check only when the caller has an audit", () => {
    const r = assess(makeHealthySnapshot(), { rpoSeconds: 120 });
    expect(statusOf(r, "lag")?.title).toBe("Lag within the RPO (2 min)");
    const audited = assess(makeHealthySnapshot(), { audit: null });
    expect(statusOf(audited, "content")).toEqual({
      id: "content",
      title: "Record content",
      status: "ok",
      message: "no record content audited yet (audit disabled, or no copied record sampled yet)",
      items: [],
    });
    expect(readinessRules.map((rule) => rule.id)).toEqual(["connectors", "topics", "configs", "lag", "alerts", "groups", "heartbeats", "content"]);
  });
});
