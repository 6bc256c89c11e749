import { formatDuration, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/**
 * MM2_CONNECTOR_MISSING — a flow Gapwatch once found on Connect has lost its MirrorSourceConnector(s): the Connect
 * cluster answers but no longer lists them (a mistaken DELETE, a failed redeploy). MM2 copies nothing while
 * producers keep writing; the flow is kept on every page (lib/collector/retained-flows.ts) until re-created or retired.
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
    findings.push({
      key: `${FindingType.MM2_CONNECTOR_MISSING}|${flow.id}`,
      type: FindingType.MM2_CONNECTOR_MISSING,
      severity: Severity.CRITICAL,
      flow: flow.id,
      summary:
        `MM2 source connector ${names} of flow ${flow.id} is gone from Connect cluster ${connectCluster} ` +
        `since ${since} UTC (${formatDuration(ctx.now - missing.since)}): nothing is replicated; re-create it, or retire the flow`,
      evidence: {
        connectCluster,
        connectors: names,
        missingSince: missing.since,
        missingForMs: ctx.now - missing.since,
        totalLag: flow.totals.lag.toString(),
      },
      observedAt: ctx.now,
    });
  }
  return findings;
}
