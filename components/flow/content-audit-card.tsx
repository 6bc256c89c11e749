import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Pill } from "@/components/ui/pill";
import { Table, Td, Th } from "@/components/ui/table";
import { TextLink } from "@/components/ui/text-link";
import { formatCount } from "@/lib/format";
import type { FlowAuditPage } from "@/lib/views/audit";

/** Problems listed on the flow page; the rest are in GET /api/flows/{flow}/audit. */
const shownProblems = 8;

/**
 * The content audit, compact: records whose key, value, headers and timestamp were verified on the target at the
 * offsets Gapwatch maps them to, per topic, the newest problems with exact offsets, and what the last audit cost.
 */
export function ContentAuditCard({ page }: { page: FlowAuditPage }) {
  const apiHref = `/api/flows/${encodeURIComponent(page.flow)}/audit`;
  const audit = page.audit;
  return (
    <Card id="content-audit" data-testid="content-audit-card" className="mb-4">
      <CardHeader>
        <CardTitle>Record content</CardTitle>
        {audit === null ? null : (
          <span className="flex flex-wrap gap-1 text-xs" data-testid="content-audit-counts">
            <Pill tone="ok">{formatCount(audit.totals.matched)} matched</Pill>
            <Pill tone={audit.totals.mismatched > 0 ? "crit" : "ok"}>{formatCount(audit.totals.mismatched)} mismatched</Pill>
            <Pill tone={audit.totals.missing > 0 ? "warn" : "ok"}>{formatCount(audit.totals.missing)} missing</Pill>
            <Pill tone={audit.totals.duplicates > 0 ? "warn" : "ok"}>{formatCount(audit.totals.duplicates)} duplicates</Pill>
            <Pill tone={audit.totals.foreign > 0 ? "warn" : "ok"}>{formatCount(audit.totals.foreign)} not from the source</Pill>
          </span>
        )}
      </CardHeader>
      <CardContent>
        <p className="mb-2 text-xs text-zinc-600 dark:text-zinc-400">
          {!page.enabled
            ? "The content audit is off (audit.enabled: false)."
            : audit === null
              ? "No record compared yet."
              : `Content verified for ${formatCount(audit.verifiedLastHour)} records over the last hour (SHA-256 of key, value, headers and timestamp; payloads are never stored). ` +
                describeRange(audit.totals.oldestRecordAt, audit.totals.newestRecordAt) +
                describeCost(audit.lastCycle)}{" "}
          <TextLink href={apiHref}>Audit (API)</TextLink>
        </p>
        {audit === null || audit.topics.length === 0 ? null : (
          <Table>
            <thead>
              <tr>
                <Th>Topic</Th>
                <Th>Audited</Th>
                <Th>Matched</Th>
                <Th>Mismatched</Th>
                <Th>Missing</Th>
                <Th>Duplicates</Th>
                <Th>Not from source</Th>
              </tr>
            </thead>
            <tbody>
              {audit.topics.map((t) => (
                <tr key={t.topic} data-testid="content-audit-topic">
                  <Td className="font-mono">{t.topic}</Td>
                  <Td>{formatCount(t.audited)}</Td>
                  <Td>{formatCount(t.matched)}</Td>
                  <Td>{formatCount(t.mismatched)}</Td>
                  <Td>{formatCount(t.missing)}</Td>
                  <Td>{formatCount(t.duplicates)}</Td>
                  <Td>{formatCount(t.foreign)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        {audit === null || audit.confirmedLosses.length === 0 ? null : (
          <ul className="mt-2 list-inside list-disc text-xs" data-testid="content-audit-confirmed-losses">
            {audit.confirmedLosses.map((l) => (
              <li key={`${l.topic}|${l.partition}|${String(l.firstLostOffset)}`} className="font-mono">
                confirmed missing: {l.topic}[{l.partition}] source {l.firstLostOffset.toString()}–{l.lastLostOffset.toString()} (
                {formatCount(Number(l.lastLostOffset - l.firstLostOffset + 1n))} records): the target holds source{" "}
                {(l.lastLostOffset + 1n).toString()} at {l.targetOffset.toString()}, right after source {(l.firstLostOffset - 1n).toString()}
              </li>
            ))}
          </ul>
        )}
        {audit === null || audit.problems.length === 0 ? null : (
          <ul className="mt-2 list-inside list-disc text-xs" data-testid="content-audit-problems">
            {audit.problems.slice(0, shownProblems).map((p, i) => (
              <li key={`${p.topic}|${p.partition}|${String(p.sourceOffset)}|${i}`} className="font-mono">
                {p.outcome}: {p.topic}[{p.partition}] source {p.sourceOffset === null ? "—" : p.sourceOffset.toString()} → target{" "}
                {p.targetOffsets.map((o) => o.toString()).join(", ")}
                {p.mismatch === null ? "" : ` (${p.mismatch.fields.join(", ")} differ; value lengths ${p.mismatch.sourceValueLength}/${p.mismatch.targetValueLength})`}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

function describeRange(oldest: number | null, newest: number | null): string {
  if (oldest === null || newest === null) return "";
  return `Records written ${new Date(oldest).toISOString()} – ${new Date(newest).toISOString()}. `;
}

function describeCost(last: NonNullable<FlowAuditPage["audit"]>["lastCycle"]): string {
  if (last === null) return "";
  const c = last.cost;
  return `Last audit: ${c.windows} partitions, ${c.fetchRequests} requests, ${formatCount(c.bytes)} bytes, ${c.cpuMs} ms CPU.`;
}
