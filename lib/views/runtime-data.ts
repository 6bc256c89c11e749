import type { Snapshot } from "@/lib/collector/types";
import { GapwatchError, NotFoundError, errorCodes } from "@/lib/errors";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { getServingRuntime } from "@/lib/pipeline/runtime";

/** No cycle has finished yet (the server just started): answered 503 by the API. */
export class NoDataYetError extends GapwatchError {
  constructor() {
    super(errorCodes.kafkaUnreachable, "Gapwatch has not finished its first poll cycle yet; retry in a few seconds");
  }
}

/** This cycle's translation of a flow failed (logged by the pipeline): answered 503, the next cycle tries again. */
export class TranslationUnavailableError extends GapwatchError {
  constructor(flowId: string, why: string) {
    super(errorCodes.kafkaUnreachable, `the offset translation of flow ${flowId} failed this cycle (${why}); retry after the next poll`);
  }
}

/** The read model of the latest cycle the pipeline finished, or null before the first one. */
export function readLatestModel(): ReadModel | null {
  return getServingRuntime().models.latest();
}

export function requireReadModel(): ReadModel {
  const model = readLatestModel();
  if (!model) throw new NoDataYetError();
  return model;
}

/** The snapshot of the latest finished cycle, or null before the first one. */
export function readLatestSnapshot(): Snapshot | null {
  return readLatestModel()?.snapshot ?? null;
}

export function requireSnapshot(): Snapshot {
  return requireReadModel().snapshot;
}

export function requireFlow(snapshot: Snapshot, flowId: string) {
  const flow = snapshot.flows.find((f) => f.id === flowId);
  if (!flow) {
    const known = snapshot.flows.map((f) => f.id).join(", ") || "none discovered yet";
    throw new NotFoundError(`no MM2 flow "${flowId}"; known flows: ${known}`);
  }
  return flow;
}
