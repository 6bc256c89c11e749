import { getRuntime } from "@/lib/collector/singleton";
import type { Flow, Snapshot } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import { getLogger } from "@/lib/logger";
import type { FlowTranslation } from "@/lib/translation";
import { translateFlowOfSnapshot } from "./groups";
import { assessFlowReadiness, type FlowReadiness } from "./readiness";
import { requireFlow, requireSnapshot } from "./runtime-data";

const log = getLogger("readiness");

/** The readiness of one flow in the latest snapshot (503 before the first cycle, 404 for an unknown flow). */
export function readFlowReadiness(flowId: string, now: number): FlowReadiness {
  const snapshot = requireSnapshot();
  return assessReadinessInSnapshot(snapshot, requireFlow(snapshot, flowId), now);
}

/** The readiness of every flow of a snapshot (overview, metrics). */
export function listFlowReadiness(snapshot: Snapshot, now: number): FlowReadiness[] {
  return snapshot.flows.map((flow) => assessReadinessInSnapshot(snapshot, flow, now));
}

/** The readiness of one flow of a snapshot the page already holds. */
export function assessReadinessInSnapshot(snapshot: Snapshot, flow: Flow, now: number): FlowReadiness {
  const config = getConfig();
  return assessFlowReadiness({
    snapshot,
    flow,
    translation: translateOrNull(snapshot, flow, now),
    alerts: getRuntime().alerts.list(),
    thresholds: config.thresholds,
    rpoSeconds: config.flows[flow.id]?.rpoSeconds ?? config.thresholds.lagSeconds,
    now,
  });
}

/** A translation failure makes the groups check unknown, never the whole verdict an error page. */
function translateOrNull(snapshot: Snapshot, flow: Flow, now: number): FlowTranslation | null {
  try {
    return translateFlowOfSnapshot(snapshot, flow, now);
  } catch (err) {
    log.warn({ flow: flow.id, err: err instanceof Error ? err.message : String(err) }, "translation failed; readiness of its groups unknown");
    return null;
  }
}
