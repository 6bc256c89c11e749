import { Pill } from "@/components/ui/pill";
import { formatAge } from "@/lib/format";
import type { RiskRecord } from "@/lib/alerts/types";

const typeLabels: Record<string, string> = {
  COMMIT_WITHOUT_LEADER_EPOCH: "Commits without leader epoch",
  UNCLEAN_ELECTION_ENABLED: "Unclean election enabled",
  REPLICATION_FACTOR_ONE: "Replication factor 1",
  MIN_INSYNC_REPLICAS_ONE: "min.insync.replicas 1",
  TARGET_RETENTION_SHORTER: "Target retention shorter",
  TOPIC_DRIFT: "Target topic drift",
};

/** One row per risk: what, where, since when, and the one-line explanation; stacked into blocks on a phone (below sm). */
export function RiskTable({ risks, now }: { risks: readonly RiskRecord[]; now: number }) {
  if (risks.length === 0) return <p className="text-sm">No standing risk: every group commits with a leader epoch, no topic allows an unclean election or has a single replica, and every target topic matches its source.</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm max-sm:block" data-testid="risk-table">
        <thead className="text-xs text-zinc-600 max-sm:hidden dark:text-zinc-400">
          <tr>
            <th className="py-1 pr-3">Risk</th>
            <th className="py-1 pr-3">Where</th>
            <th className="py-1 pr-3">Since</th>
            <th className="py-1">What it means</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-200 max-sm:block dark:divide-zinc-800">
          {risks.map((r) => (
            <tr key={r.key} data-testid="risk-row" data-type={r.type} data-cluster={r.cluster ?? ""} data-group={r.group ?? ""} className="align-top max-sm:block max-sm:py-2">
              <td className="py-2 pr-3 max-sm:block max-sm:py-0.5">
                <Pill tone={r.severity === "warning" ? "warn" : "info"}>{typeLabels[r.type] ?? r.type}</Pill>
              </td>
              <td className="py-2 pr-3 font-mono text-xs whitespace-nowrap max-sm:inline max-sm:break-all max-sm:whitespace-normal">{[r.cluster, r.group].filter((x) => x !== null).join(" / ")}</td>
              <td className="py-2 pr-3 text-xs whitespace-nowrap max-sm:inline max-sm:pl-2">{formatAge(now - r.firstSeen)} ago</td>
              <td className="py-2 text-sm max-sm:block max-sm:py-0.5">{r.summary}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
