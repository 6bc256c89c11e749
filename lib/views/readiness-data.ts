import type { Flow } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { ageFlowReadiness, readDataAge } from "./data-age";
import { type FlowReadiness, judgeFlowReadiness } from "./readiness";
import { requireFlow, requireReadModel } from "./runtime-data";

/** Verdicts per read model and flow: assessed once per cycle, when a page or a scrape first asks. */
const assessed = new WeakMap<ReadModel, Map<string, FlowReadiness>>();

/**
 * The readiness of one flow in the latest cycle as served at `now` (unknown on stale data: data-age.ts); 503 before the
 * first cycle, 404 for an unknown flow.
 */
export function readFlowReadiness(flowId: string, now: number): FlowReadiness {
  const model = requireReadModel();
  return readServedReadiness(model, requireFlow(model.snapshot, flowId), now);
}

/** A flow's readiness as pages, the API and the metrics serve it at `now`: unknown on stale data (data-age.ts). */
export function readServedReadiness(model: ReadModel, flow: Flow, now: number): FlowReadiness {
  return ageFlowReadiness(readReadinessOf(model, flow), readDataAge(model, now));
}

/** Every flow's readiness as served at `now` (overview, metrics). */
export function listServedReadiness(model: ReadModel, now: number): FlowReadiness[] {
  const age = readDataAge(model, now);
  return listFlowReadiness(model).map((r) => ageFlowReadiness(r, age));
}

/** The readiness of every flow of a cycle (overview, metrics). */
export function listFlowReadiness(model: ReadModel): FlowReadiness[] {
  return model.snapshot.flows.map((flow) => readReadinessOf(model, flow));
}

/**
 * The readiness of one flow of a cycle, as of the cycle's snapshot (ages are measured at `takenAt`). A flow
 * whose translation failed this cycle has its groups check unknown, never the whole verdict an error page.
 */
export function readReadinessOf(model: ReadModel, flow: Flow): FlowReadiness {
  let byFlow = assessed.get(model);
  if (!byFlow) assessed.set(model, (byFlow = new Map()));
  const known = byFlow.get(flow.id);
  if (known) return known;
  const readiness = judgeFlowReadiness(model, flow, getConfig());
  byFlow.set(flow.id, readiness);
  return readiness;
}
