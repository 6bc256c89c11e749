import type { CollectorHistory, Snapshot } from "@/lib/collector/types";
import type { GapwatchConfig } from "@/lib/config";
import {
  createDetectorMemory,
  type DetectorMemory,
  type Finding,
  parseDetectorMemory,
  riskFindingTypes,
  runDetectors,
} from "@/lib/detect";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { createNotifier, type Notifier } from "./notifiers";
import { acknowledgeAlert, defaultReconcileOptions, reconcileAlerts } from "./reconcile-alerts";
import { reconcileRisks } from "./reconcile-risks";
import type { AlertRecord, AlertTransition, RiskRecord } from "./types";

const log = getLogger("alerts");
const memoryKey = "detector-memory";
const risksKey = "risks";

/** One cycle as the alert service sees it. */
export interface AlertCycleInput {
  current: Snapshot;
  previous: Snapshot | null;
  history: CollectorHistory;
  /** Findings of other pure detectors this cycle (lib/translation's, from the pipeline). */
  extraFindings: readonly Finding[];
}

/** What one cycle left: the alerts and risks after it, and the transitions it caused. */
export interface AlertCycleResult {
  alerts: readonly AlertRecord[];
  risks: readonly RiskRecord[];
  transitions: readonly AlertTransition[];
}

/** The server's alerting: detectors, alert lifecycle, persistence and delivery, one cycle at a time. */
export interface AlertService {
  /** Runs the detectors on a cycle and reconciles their findings with the alerts (the pipeline calls it). */
  processCycle(input: AlertCycleInput): Promise<AlertCycleResult>;
  list(filter?: { state?: string; type?: string; flow?: string }): AlertRecord[];
  /** The standing risks of the latest cycle (posture findings: never alerts). */
  risks(): RiskRecord[];
  acknowledge(id: string, by: string, now: number): Promise<AlertRecord | null>;
  stop(): void;
}

/**
 * Alerting over the stored state: each cycle runs the detectors, reconciles their findings with the
 * stored alerts (hysteresis, acknowledgement), persists alerts and detector memory (a restart
 * neither loses nor re-fires alerts), records transitions as events and hands them to the notifiers
 * (a background queue: a failing endpoint never slows polling).
 */
export function createAlertService(store: Store, config: GapwatchConfig): AlertService {
  let alerts: AlertRecord[] = [];
  let risks: RiskRecord[] = [];
  let memory = createDetectorMemory();
  // What the store kept, read once before the first cycle (started at once, so the pages see it): no cycle is
  // judged without it (that would re-fire stored alerts); a failed read is tried again by the next cycle.
  let restoring: Promise<void> | null = null;
  const restore = () =>
    (restoring ??= (async () => {
      const [stored, storedRisks, storedMemory] = await Promise.all([store.loadAlerts<AlertRecord>(), loadRisks(store), loadMemory(store)]);
      // Alerts of risk types stored before risks left the alert list are dropped, not resolved (no notification).
      alerts = stored.filter((a) => !riskFindingTypes.has(a.type));
      risks = storedRisks;
      memory = storedMemory;
    })().catch((err: unknown) => {
      restoring = null;
      throw err;
    }));
  restore().catch((err: unknown) => log.error({ err: err instanceof Error ? err.message : String(err) }, "reading the stored alerts failed"));
  const notifier: Notifier = createNotifier({
    targets: config.notifications.webhooks.map((w, i) => ({ name: `webhook-${i + 1}`, kind: w.format === "json" ? "webhook" : w.format, url: w.url })),
  });

  return {
    async processCycle({ current, previous, history, extraFindings }) {
      await restore();
      const now = current.takenAt;
      const result = runDetectors({ previous, current, history, memory, now, thresholds: config.thresholds });
      memory = result.memory;
      const findings = [...result.findings, ...extraFindings];
      const reconciled = reconcileAlerts(alerts, findings.filter((f) => !riskFindingTypes.has(f.type)), now, defaultReconcileOptions);
      alerts = reconciled.alerts;
      risks = reconcileRisks(risks, findings.filter((f) => riskFindingTypes.has(f.type)), now);
      try {
        await store.saveAlerts(alerts);
        await store.setValue(risksKey, JSON.stringify(risks));
        await store.setValue(memoryKey, JSON.stringify(memory));
        await recordTransitions(store, reconciled.transitions, now);
      } catch (err) {
        // A store error never hides alerts: they are notified, and the next cycle writes every alert, the risks and
        // the memory again (this cycle's timeline events are what is lost).
        log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the cycle's alerts to the store failed");
      }
      notifier.enqueue(reconciled.transitions);
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

async function loadMemory(store: Store): Promise<DetectorMemory> {
  const raw = await store.getValue(memoryKey);
  if (raw === null) return createDetectorMemory();
  try {
    const parsed = parseDetectorMemory(JSON.parse(raw));
    if (parsed.error) log.warn({ err: parsed.error }, "stored detector memory unreadable; starting afresh");
    return parsed.memory;
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored detector memory is not JSON; starting afresh");
    return createDetectorMemory();
  }
}

/** Risks as stored by the last cycle (their first-seen times survive a restart); unreadable → none yet. */
async function loadRisks(store: Store): Promise<RiskRecord[]> {
  const raw = await store.getValue(risksKey);
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
    await store.appendEvent({ at: now, kind: `alert-${t.type}`, flow: t.alert.flow, cluster: t.alert.cluster, message: `${t.alert.type} ${t.type}: ${t.alert.summary}`, data: describeTransition(t) });
    log.info({ alert: t.alert.id, type: t.alert.type, transition: t.type }, t.alert.summary);
  }
}
