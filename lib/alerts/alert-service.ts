import { describeThisCollector, type ShardAssignment } from "@/lib/collector/shards";
import type { GapwatchConfig } from "@/lib/config";
import { type Finding, riskFindingTypes } from "@/lib/detect/types";
import { getLogger } from "@/lib/logger";
import type { QueuedNotification, Store } from "@/lib/store";
import { ownerOfFindingKey, shardRisksKey } from "./alert-scope";
import { createNotifier, type Notifier } from "./notifiers";
import { acknowledgeAlert, defaultReconcileOptions, reconcileAlerts } from "./reconcile-alerts";
import { reconcileRisks } from "./reconcile-risks";
import { describeTransitionLine, isAcknowledgeable } from "./loss-alerts";
import type { AlertRecord, AlertTransition, RiskRecord } from "./types";

const log = getLogger("alerts");
const risksKey = "risks";

/** One cycle as the alert service sees it: every rule's findings (the pipeline runs the engine, lib/detect). */
export interface AlertCycleInput {
  findings: readonly Finding[];
  /** The cycle's time (its snapshot's takenAt). */
  now: number;
}

/** What one cycle left: the alerts and risks after it, and the transitions it caused. */
export interface AlertCycleResult {
  alerts: readonly AlertRecord[];
  risks: readonly RiskRecord[];
  transitions: readonly AlertTransition[];
}

/** The server's alerting: alert lifecycle, persistence and delivery, one cycle at a time. */
export interface AlertService {
  /** Reconciles a cycle's findings with the alerts (the pipeline calls it). */
  processCycle(input: AlertCycleInput): Promise<AlertCycleResult>;
  list(filter?: { state?: string; type?: string; flow?: string }): AlertRecord[];
  /** The standing risks of the latest cycle (posture findings: never alerts). */
  risks(): RiskRecord[];
  acknowledge(id: string, by: string, now: number): Promise<AlertRecord | null>;
  stop(): void;
}

/**
 * Alerting over the stored state: each cycle reconciles the rules' findings with the stored alerts (hysteresis,
 * acknowledgement), persists alerts and risks (a restart neither loses nor re-fires alerts), records transitions as
 * events and hands them to the notifiers (a background queue: a failing endpoint never slows polling).
 *
 * With `scope` (a collector sharing the work, config scaleOut) it holds only what belongs to the shards of the
 * current cycle (alert-scope.ts): when they change, before the cycle is reconciled, it reads from the store what the
 * gained shards' previous owners left — a gained shard's firing alerts stay firing under the same id — keeps the
 * kept shards' alerts and risks as it holds them, and drops the lost shards', which stay in the store for their new
 * owner.
 */
export function createAlertService(store: Store, config: GapwatchConfig, scope: ShardAssignment | null = null): AlertService {
  let alerts: AlertRecord[] = [];
  let risks: RiskRecord[] = [];
  // What the store kept, read once before the first cycle (started at once, so the pages see it): no cycle is
  // judged without it (that would re-fire stored alerts); a failed read is tried again by the next cycle.
  let restoring: Promise<void> | null = null;
  // The shards the held state was read for (scope only).
  let loadedShards: readonly number[] = [];
  const owns = (key: string) => scope === null || scope.owns(ownerOfFindingKey(key));
  const restore = () =>
    (restoring ??= (async () => {
      const shards = scope?.held() ?? null;
      const [stored, storedRisks] = await Promise.all([store.loadAlerts<AlertRecord>(), loadRisks(store, shards)]);
      // Alerts of risk types stored before risks left the alert list are dropped, not resolved (no notification).
      alerts = stored.filter((a) => !riskFindingTypes.has(a.type) && owns(a.key));
      risks = storedRisks;
      loadedShards = shards ?? [];
    })().catch((err: unknown) => {
      restoring = null;
      throw err;
    }));
  restore().catch((err: unknown) => log.error({ err: err instanceof Error ? err.message : String(err) }, "reading the stored alerts failed"));
  // A failed read throws before anything changed: the cycle fails and the next one follows the shards again.
  const followShards = async (assignment: ShardAssignment) => {
    const held = assignment.held();
    const gained = held.filter((s) => !loadedShards.includes(s));
    const isGained = (key: string) => gained.includes(assignment.shardOfOwner(ownerOfFindingKey(key)));
    const isKept = (owner: string) => {
      const shard = assignment.shardOfOwner(owner);
      return held.includes(shard) && loadedShards.includes(shard);
    };
    const [stored, gainedRisks] = await Promise.all([gained.length === 0 ? [] : store.loadAlerts<AlertRecord>(), loadRisks(store, gained)]);
    alerts = [...alerts.filter((a) => isKept(ownerOfFindingKey(a.key))), ...stored.filter((a) => !riskFindingTypes.has(a.type) && isGained(a.key))];
    risks = [...risks.filter((r) => isKept(ownerOfFindingKey(r.key))), ...gainedRisks];
    loadedShards = held;
  };
  const notifier: Notifier = createNotifier({
    targets: config.notifications.webhooks.map((w, i) => ({ name: `webhook-${i + 1}`, kind: w.format === "json" ? "webhook" : w.format, url: w.url })),
    // Written with the alerts, claimed in the ledger: a crash before the send loses nothing (queued again at start),
    // and a restart or a shard's new owner never queues a transition twice.
    outbox: store,
    // Sharing the work, a row is leased to the collector that wrote it for one session timeout, renewed while it
    // sends or retries: a rebalance moves the shard at once but never its rows in flight (takeOverPending).
    lease: scope === null || config.scaleOut === undefined ? undefined : { owner: describeThisCollector(), ms: config.scaleOut.sessionTimeoutMs },
  });

  return {
    async processCycle({ findings: all, now }) {
      await restore();
      if (scope !== null && !sameShards(scope.held(), loadedShards)) await followShards(scope);
      alerts = await applyAcknowledgementRequests(store, alerts);
      // Every collector reads every cluster: a cluster's findings are judged by its shard's owner alone.
      const findings = all.filter((f) => owns(f.key));
      const reconciled = reconcileAlerts(alerts, findings.filter((f) => !riskFindingTypes.has(f.type)), now, defaultReconcileOptions);
      alerts = reconciled.alerts;
      risks = reconcileRisks(risks, findings.filter((f) => riskFindingTypes.has(f.type)), now);
      let queued: QueuedNotification[] | null = null;
      try {
        queued = await store.saveAlerts(alerts, notifier.listDeliveries(reconciled.transitions, now), notifier.leaseFor(Date.now()));
        await saveRisks(store, risks, scope);
        await recordTransitions(store, reconciled.transitions, now);
      } catch (err) {
        // A store error never hides alerts: they are notified, and the next cycle writes every alert and the risks
        // (this cycle's timeline events are what is lost).
        log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the cycle's alerts to the store failed");
      }
      // The outbox rows the write queued; if it failed, the transitions are sent from memory.
      if (queued) notifier.enqueueQueued(queued);
      else notifier.enqueue(reconciled.transitions);
      // Rows of the held shards no live collector sends: a previous owner died before sending them, or this
      // collector's own from before a restart.
      if (scope !== null) notifier.takeOverPending((t) => scope.owns(ownerOfFindingKey(t.alert.key)));
      notifier.resendFiring(alerts);
      return { alerts, risks, transitions: reconciled.transitions };
    },
    list(filter = {}) {
      return alerts
        .filter((a) => (!filter.state || a.state === filter.state) && (!filter.type || a.type === filter.type) && (!filter.flow || a.flow === filter.flow))
        .sort((a, b) => b.lastSeen - a.lastSeen);
    },
    risks: () => [...risks].sort((a, b) => a.key.localeCompare(b.key)),
    async acknowledge(id, by, now) {
      await restore();
      if (!alerts.some((a) => a.id === id)) return null;
      alerts = acknowledgeAlert(alerts, id, by, now);
      await store.saveAlerts(alerts);
      const acked = alerts.find((a) => a.id === id)!;
      await store.appendEvent({ at: now, kind: "alert-acknowledged", flow: acked.flow, cluster: acked.cluster, message: `${acked.type} acknowledged by ${by}: ${acked.summary}`, data: { id } });
      return acked;
    },
    stop: () => notifier.stop(),
  };
}

/**
 * Applies the acknowledgements web instances queued in the store (GAPWATCH_ROLE=web) to the alerts this service
 * holds, as acknowledge() does, and removes them; a request for an alert another collector holds stays queued.
 */
async function applyAcknowledgementRequests(store: Store, alerts: AlertRecord[]): Promise<AlertRecord[]> {
  try {
    const held = new Map(alerts.map((a) => [a.id, a]));
    const requests = (await store.listAcknowledgementRequests()).filter((r) => held.has(r.alertId));
    if (requests.length === 0) return alerts;
    let next = alerts;
    for (const r of requests) {
      const alert = held.get(r.alertId)!;
      if (!isAcknowledgeable(alert)) continue;
      next = acknowledgeAlert(next, r.alertId, r.by, r.at);
      await store.appendEvent({ at: r.at, kind: "alert-acknowledged", flow: alert.flow, cluster: alert.cluster, message: `${alert.type} acknowledged by ${r.by}: ${alert.summary}`, data: { id: r.alertId } });
    }
    await store.deleteAcknowledgementRequests(requests.map((r) => r.alertId));
    return next;
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, "applying queued acknowledgements failed; the next cycle tries again");
    return alerts;
  }
}

function sameShards(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The held shards' risks, or every risk without scaleOut (null). */
async function loadRisks(store: Store, shards: readonly number[] | null): Promise<RiskRecord[]> {
  if (shards === null) return loadRisksValue(store, risksKey);
  return (await Promise.all(shards.map((s) => loadRisksValue(store, shardRisksKey(s))))).flat();
}

/** Writes the risks: one value, or with scaleOut one per held shard (an empty list clears what its owner left). */
async function saveRisks(store: Store, risks: readonly RiskRecord[], scope: ShardAssignment | null): Promise<void> {
  if (scope === null) return store.setValue(risksKey, JSON.stringify(risks));
  for (const shard of scope.held()) {
    await store.setValue(shardRisksKey(shard), JSON.stringify(risks.filter((r) => scope.shardOfOwner(ownerOfFindingKey(r.key)) === shard)));
  }
}

/** Risks as stored by the last cycle (their first-seen times survive a restart); unreadable → none yet. */
async function loadRisksValue(store: Store, key: string): Promise<RiskRecord[]> {
  const raw = await store.getValue(key);
  if (raw === null) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? (parsed as RiskRecord[]) : [];
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored risks are not JSON; starting afresh");
    return [];
  }
}

/**
 * What the timeline keeps of a transition: the alert's id, and for fired/refired where it was and
 * its evidence then (the alert record itself keeps only the latest).
 */
function describeTransition(t: AlertTransition): Record<string, unknown> {
  if (t.type === "resolved") return { id: t.alert.id };
  const { id, topic, partition, evidence } = t.alert;
  return { id, topic, partition, evidence };
}

/** Fired, refired and resolved go to the event timeline; "updated" (a count or summary changed) would drown it. */
async function recordTransitions(store: Store, transitions: readonly AlertTransition[], now: number): Promise<void> {
  for (const t of transitions.filter((x) => x.type !== "updated")) {
    await store.appendEvent({ at: now, kind: `alert-${t.type}`, flow: t.alert.flow, cluster: t.alert.cluster, message: describeTransitionLine(t), data: describeTransition(t) });
    log.info({ alert: t.alert.id, type: t.alert.type, transition: t.type }, t.alert.summary);
  }
}
