import { getRuntime } from "@/lib/collector/singleton";
import type { Snapshot } from "@/lib/collector/types";
import { GapwatchError, NotFoundError, errorCodes } from "@/lib/errors";

/** No cycle has finished yet (the server just started): answered 503 by the API. */
export class NoDataYetError extends GapwatchError {
  constructor() {
    super(errorCodes.kafkaUnreachable, "Gapwatch has not finished its first poll cycle yet; retry in a few seconds");
  }
}

/** The latest snapshot, or null before the first cycle. */
export function readLatestSnapshot(): Snapshot | null {
  return getRuntime().collector.latest();
}

export function requireSnapshot(): Snapshot {
  const snapshot = readLatestSnapshot();
  if (!snapshot) throw new NoDataYetError();
  return snapshot;
}

export function requireFlow(snapshot: Snapshot, flowId: string) {
  const flow = snapshot.flows.find((f) => f.id === flowId);
  if (!flow) {
    const known = snapshot.flows.map((f) => f.id).join(", ") || "none discovered yet";
    throw new NotFoundError(`no MM2 flow "${flowId}"; known flows: ${known}`);
  }
  return flow;
}
