import type { AlertRecord } from "@/lib/alerts/types";
import { encodeFlowId } from "./params";

/** Where an alert's evidence is best seen: the partition page for partition alerts, else the alerts page. */
export function linkAlertEvidence(a: Pick<AlertRecord, "id" | "flow" | "topic" | "partition">): string {
  if (a.flow && a.topic && a.partition !== null) {
    return `/flows/${encodeFlowId(a.flow)}/topics/${encodeURIComponent(a.topic)}/${a.partition}?alert=${a.id}`;
  }
  return `/alerts?focus=${a.id}#alert-${a.id}`;
}
