import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Pill } from "@/components/ui/pill";
import { Table, Td, Th } from "@/components/ui/table";
import { TextLink } from "@/components/ui/text-link";
import { formatAge } from "@/lib/format";
import type { CoverageRow, FlowCoverage } from "@/lib/views/coverage";

/** Rows shown on the flow page; the rest are in GET /api/flows/{flow}/coverage. */
const shownRows = 12;

/**
 * Topic coverage and drift, compact: counts per status, then the topics that need a look (missing on the target,
 * weaker settings on the target, left out by the filter), with the rule or the settings that make them so.
 */
export function CoverageCard({ coverage, now }: { coverage: FlowCoverage; now: number }) {
  const { counts } = coverage;
  const notable = coverage.rows.filter((r) => r.status === "missing-on-target" || r.status === "not-matched" || r.weaker.length > 0);
  const apiHref = `/api/flows/${encodeURIComponent(coverage.flow)}/coverage`;
  return (
    <Card id="coverage" data-testid="coverage-card" className="mb-4">
      <CardHeader>
        <CardTitle>Topic coverage</CardTitle>
        <span className="flex flex-wrap gap-1 text-xs" data-testid="coverage-counts">
          <Pill tone="ok">{counts.replicated} replicated</Pill>
          <Pill tone={counts["missing-on-target"] > 0 ? "crit" : "ok"}>{counts["missing-on-target"]} missing on target</Pill>
          <Pill tone={counts.drifted > 0 ? "warn" : "ok"}>{counts.drifted} drifted</Pill>
          <Pill tone="unknown">{counts["not-matched"]} not matched</Pill>
          <Pill tone="unknown">{counts.internal} internal skipped</Pill>
        </span>
      </CardHeader>
      <CardContent>
        <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">
          MM2&apos;s topics filter <span className="font-mono">{coverage.filter.topics}</span>
          {coverage.known ? (coverage.filter.known ? "" : " (not evaluated exactly: a connector's filter is unknown)") : " (not judged yet)"}.{" "}
          <TextLink href={apiHref}>Every topic (API)</TextLink>
        </p>
        {notable.length === 0 ? (
          <p className="text-sm">Every matched topic exists on the target with the source&apos;s partition count and settings.</p>
        ) : (
          <Table>
            <thead>
              <tr>
                <Th>Topic</Th>
                <Th>Status</Th>
                <Th>Why</Th>
              </tr>
            </thead>
            <tbody>
              {notable.slice(0, shownRows).map((row) => (
                <tr key={row.topic} data-testid="coverage-row" data-topic={row.topic} data-status={row.status}>
                  <Td className="font-mono">{row.topic}</Td>
                  <Td>
                    <Pill tone={row.status === "missing-on-target" ? "crit" : row.status === "replicated" ? "warn" : "unknown"}>{labelOf(row)}</Pill>
                  </Td>
                  <Td className="text-xs">{explain(row, now)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        {notable.length > shownRows ? <p className="mt-1 text-xs">{notable.length - shownRows} more in the API.</p> : null}
      </CardContent>
    </Card>
  );
}

function labelOf(row: CoverageRow): string {
  if (row.status === "missing-on-target") return "missing on target";
  if (row.status === "replicated") return "drift";
  return row.status === "internal" ? "internal" : "not matched";
}

function explain(row: CoverageRow, now: number): string {
  if (row.status === "missing-on-target") return `${row.targetTopic ?? "?"} does not exist on the target${row.missingSince === null ? "" : ` (for ${formatAge(now - row.missingSince)})`}`;
  if (row.status === "replicated") {
    return row.settings
      .filter((s) => s.weaker)
      .map((s) => `${s.setting}: target ${s.target ?? "?"}, source ${s.source ?? "?"}`)
      .join("; ");
  }
  return row.reason ?? "the filter is unknown";
}
