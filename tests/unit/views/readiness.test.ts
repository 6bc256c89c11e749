import { describe, expect, it } from "vitest";
import { makeHealthySnapshot, readinessConnectors } from "../detect/readiness-fixtures";
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import type { FlowTranslation } from "@/lib/translation";
import { defaultThresholds } from "@/lib/config/thresholds";
import { assessFlowReadiness } from "@/lib/detect/readiness/verdict";
import { listReadinessAlerts, showFlowReadiness } from "@/lib/views/readiness";
import { makeAlert } from "../alerts/helpers";
import {
  makeCluster,
  makeConnect,
  makeConnector,
  makeFlowPartition,
  makeTask,
  makeTopic,
  T0,
} from "../detect/fixtures";

/**
 * What lib/views adds to the engine's readiness (tests/unit/detect/readiness.test.ts judges the checks): lib/alerts'
 * records as the facts the checks read (acknowledgements applied), and the items' references as links.
 */

const noGroups = { partitions: 0, translated: 0, untranslatable: 0, rereadRecords: 0n, failoverReplayRecords: 0n, skippingPartitions: 0, groupLag: 0n, oldestCheckpointAgeMs: null };

/** The flow's translation: no consumer group, MM2's groups filter leaving out `excluded`. */
function translationOf(excludedGroups: string[] = []): FlowTranslation {
  const checkpointTiming = { emitIntervalMs: 60_000, refreshGroupsIntervalMs: 600_000 };
  return { flow: "east->west", source: "east", target: "west", at: T0, syncsLoaded: true, checkpointTiming, groups: [], excludedGroups, uncheckpointedGroups: [], totals: { ...noGroups, groups: 0 } };
}

/** The readiness of the snapshot's flow as pages show it, with lib/alerts' records. */
function show(snapshot: Snapshot, alerts: AlertRecord[] = [], translation = translationOf()) {
  return showFlowReadiness(
    assessFlowReadiness({
      snapshot,
      flow: snapshot.flows[0]!,
      translation,
      alerts: listReadinessAlerts(alerts),
      thresholds: defaultThresholds,
      rpoSeconds: 300,
      now: snapshot.takenAt,
    }),
  );
}

const statusOf = (r: ReturnType<typeof show>, id: string) => r.checks.find((c) => c.id === id);

/** A firing DATA_LOSS alert of the flow (tests/unit/alerts/helpers.ts), as the readiness cases name it. */
function alert(over: Partial<AlertRecord>): AlertRecord {
  return makeAlert({
    id: "a1",
    key: "DATA_LOSS|east->west|orders|2|500",
    summary: "300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)",
    evidence: {},
    ...over,
  });
}

describe("failover readiness as shown", () => {
  it("is not ready while a DATA_LOSS alert of the flow fires or stopped growing unacknowledged, ready once acknowledged", () => {
    const firing = show(makeHealthySnapshot(), [alert({ evidence: { lostCount: "300" } }), alert({ id: "a2", key: "k2", partition: 1, summary: "25 records of orders/1 were deleted at east before MM2 copied them (offsets 40–64)", evidence: { lostCount: "25" } })]);
    expect(firing.verdict).toBe("not-ready");
    expect(firing.cost.lostRecords).toBe(325n);
    expect(statusOf(firing, "alerts")).toMatchObject({
      message: "2 open: DATA_LOSS — 300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)",
      items: [
        { text: "DATA_LOSS: 300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)", href: "/flows/east-%3Ewest/topics/orders/2?alert=a1" },
        { text: "DATA_LOSS: 25 records of orders/1 were deleted at east before MM2 copied them (offsets 40–64)", href: "/flows/east-%3Ewest/topics/orders/1?alert=a2" },
      ],
    });
    const stopped = show(makeHealthySnapshot(), [alert({ state: "resolved", resolvedAt: T0 })]);
    expect(stopped.verdict).toBe("not-ready");
    expect(statusOf(stopped, "alerts")?.message).toBe("1 open: DATA_LOSS — 300 records of orders/2 were deleted at east before MM2 copied them (offsets 500–799)");
    const acknowledged = alert({ state: "resolved", resolvedAt: T0, acknowledged: { by: "admin", at: T0 } });
    expect(show(makeHealthySnapshot(), [acknowledged]).verdict).toBe("ready");
    expect(show(makeHealthySnapshot(), [alert({ type: "TASK_FAILED", state: "resolved", resolvedAt: T0 })]).verdict).toBe("ready");
    // An OFFLINE partition blocks only on the target; another flow's loss does not count.
    expect(show(makeHealthySnapshot(), [alert({ type: "OFFLINE", flow: null, cluster: "west" })]).verdict).toBe("not-ready");
    expect(show(makeHealthySnapshot(), [alert({ type: "OFFLINE", flow: null, cluster: "east" })]).verdict).toBe("ready");
    expect(show(makeHealthySnapshot(), [alert({ flow: "west->east" })]).verdict).toBe("ready");
  });

  it("links each item to its evidence on the flow's pages, the Connect page or the alerts page", () => {
    const snapshot = makeHealthySnapshot();
    const filterless = show({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [], topicsFilter: "payments-.*" }] });
    expect(statusOf(filterless, "topics")?.items).toEqual([{ text: "topic coverage", href: "/flows/east-%3Ewest#coverage" }]);
    const noTarget = show(makeHealthySnapshot({ clusters: [makeCluster("east", { topics: [makeTopic("orders", [{ partition: 2 }])] }), makeCluster("west")] }));
    expect(statusOf(noTarget, "topics")?.items).toEqual([{ text: "east.orders missing on west", href: "/flows/east-%3Ewest/topics/orders" }]);
    const failed = [makeConnector({ tasks: [makeTask(0, { state: "FAILED" })] }), ...readinessConnectors.slice(1)];
    expect(statusOf(show(makeHealthySnapshot({ connect: [makeConnect(failed)] })), "connectors")?.items).toEqual([{ text: "mm2-source (source): task 0 FAILED", href: "/connect" }]);
    const lagging = makeFlowPartition({ sourceLogEnd: 1500n, mm2Position: 1000n, oldestUnreplicatedTimestamp: T0 - 600_000 });
    const late = show({ ...snapshot, flows: [{ ...snapshot.flows[0]!, partitions: [lagging] }] });
    expect(statusOf(late, "lag")?.items).toEqual([{ text: "500 records not yet copied", href: "/flows/east-%3Ewest" }]);
    const stale = alert({ id: "s1", type: "CHECKPOINT_STALE", group: "billing", topic: null, partition: null });
    const r = show(snapshot, [stale], translationOf(["etl"]));
    expect(statusOf(r, "groups")?.items).toEqual([
      { text: "etl: MM2's groups filter leaves it out (restarts from its reset policy after failover)", href: null },
      { text: "billing: checkpoints stale", href: "/alerts?focus=s1#alert-s1" },
    ]);
  });
});
