import { findConnectCluster } from "@/lib/collector/connector-clusters";
import { countOf, formatDuration, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * MM2_CONNECTOR_MISSING — a flow Gapwatch once found on Connect has lost its MirrorSourceConnector(s): the Connect
 * cluster answers but no longer lists them (a mistaken DELETE, a failed redeploy). MM2 copies nothing while
 * producers keep writing; the flow is kept on every page (lib/collector/retained-flows.ts) until re-created or retired.
 * In a flow split over several source connectors, one deleted connector is named alone: its topics stay in the flow
 * (its filter kept) and are not replicated, while the other connectors' topics are copied as before.
 *
 * LOGIC — per flow with `connectorMissing` (set by the collector only in a cycle where the flow's Connect cluster
 * answered) missing for ≥ thresholds.notRunningAfterMs: one critical finding `MM2_CONNECTOR_MISSING|<flow>` naming
 * the connectors, the Connect cluster and since when. The wait is the look-alike's: a redeploy that deletes and
 * re-creates the connector under its name (Connect keeps its offsets) takes seconds. A Connect cluster that does
 * not answer is unknown, not missing: the collector sets nothing then and the finding is carried (its evidence names
 * the Connect cluster). A retired flow is no longer in the snapshot.
 */
export function detectConnectorsMissing(ctx: DetectorContext): Finding[] {
  const findings: Finding[] = [];
  for (const flow of ctx.current.flows) {
    const missing = flow.connectorMissing;
    const connectCluster = flow.connectors.connectCluster;
    if (missing === undefined || connectCluster === null) continue;
    if (ctx.now - missing.since < ctx.thresholds.notRunningAfterMs) continue;
    const names = missing.connectors.join(", ");
    const since = new Date(missing.since).toISOString().replace("T", " ").slice(0, 19);
    const running = flow.connectors.sources.filter((name) => !missing.connectors.includes(name));
    const missingCluster = findConnectCluster(flow.connectors, missing.connectors[0] ?? null) ?? connectCluster;
    const topics = new Set(flow.partitions.filter((p) => p.sourceConnector !== null && missing.connectors.includes(p.sourceConnector)).map((p) => p.topic));
    const effect =
      running.length === 0
        ? "nothing is replicated"
        : `its ${countOf(topics.size, "topic")} ${topics.size === 1 ? "is" : "are"} not replicated (${running.join(", ")} still ${running.length === 1 ? "copies" : "copy"} the rest)`;
    findings.push({
      key: `${FindingType.MM2_CONNECTOR_MISSING}|${flow.id}`,
      type: FindingType.MM2_CONNECTOR_MISSING,
      severity: Severity.CRITICAL,
      flow: flow.id,
      summary:
        `MM2 source connector ${names} of flow ${flow.id} is gone from Connect cluster ${missingCluster} ` +
        `since ${since} UTC (${formatDuration(ctx.now - missing.since)}): ${effect}; re-create it, or retire the flow` +
        (running.length === 0 ? "" : ` if it was removed on purpose (the flow stays with ${running.join(", ")})`),
      evidence: {
        connectCluster: missingCluster,
        connectors: names,
        ...(running.length > 0 ? { topics: [...topics].sort((a, b) => a.localeCompare(b)).join(", ") } : {}),
        missingSince: missing.since,
        missingForMs: ctx.now - missing.since,
        totalLag: flow.totals.lag.toString(),
      },
      observedAt: ctx.now,
    });
  }
  return findings;
}
