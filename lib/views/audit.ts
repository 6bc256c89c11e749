import type { FlowAuditView } from "@/lib/audit";
import { getConfig } from "@/lib/config";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { requireFlow, requireReadModel } from "./runtime-data";

/** A flow's content audit as the API and the flow page show it. */
export interface FlowAuditPage {
  flow: string;
  enabled: boolean;
  recordsPerFlowPerMinute: number;
  /** null until the audit compared records of this flow. */
  audit: FlowAuditView | null;
}

/** The content audit of one flow in the latest cycle (503 before the first cycle, 404 for an unknown flow). */
export function readFlowAudit(flowId: string): FlowAuditPage {
  const model = requireReadModel();
  return readAuditOf(model, requireFlow(model.snapshot, flowId).id);
}

/** The content audit of one flow of a cycle (the flow page already holds the model). */
export function readAuditOf(model: ReadModel, flowId: string): FlowAuditPage {
  const { enabled, recordsPerFlowPerMinute } = getConfig().audit;
  return { flow: flowId, enabled, recordsPerFlowPerMinute, audit: model.audit.get(flowId) ?? null };
}
