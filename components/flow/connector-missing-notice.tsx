import { TextLink } from "@/components/ui/text-link";
import { formatAge } from "@/lib/format";
import { RetireFlowButton } from "./retire-flow-button";

const utc = (ms: number) => `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;

/**
 * A flow whose MirrorSourceConnector Connect no longer lists (flow.connectorMissing): red, first on the page, saying
 * what stopped, since when, and the two ways out — re-create the connector, or (admins) retire the flow.
 */
export function ConnectorMissingNotice(props: { flowId: string; connectors: readonly string[]; connectCluster: string | null; since: number; now: number; canAct: boolean }) {
  const { flowId, connectors, connectCluster, since, now, canAct } = props;
  const names = connectors.join(", ");
  return (
    <section
      role="status"
      aria-labelledby="connector-missing-title"
      data-testid="flow-connector-missing"
      className="mb-4 rounded-lg border border-red-700 bg-red-50 p-3 text-sm text-red-950 dark:border-red-500 dark:bg-red-950 dark:text-red-100"
    >
      <h2 id="connector-missing-title" className="font-semibold">
        Replication stopped: MM2&apos;s source connector is gone
      </h2>
      <p className="mt-1">
        MM2 source connector <span className="font-mono [overflow-wrap:anywhere]">{names}</span> is gone from{" "}
        {connectCluster === null ? "Connect" : <>Connect cluster <span className="font-mono">{connectCluster}</span></>} since {utc(since)} ({formatAge(now - since)} ago): nothing is replicated.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-2">
        <p>
          <strong>Next:</strong> re-create the connector with the same name (Connect kept its offsets, so MM2 resumes where it stopped), or retire
          the flow if replication ended on purpose.
        </p>
        {canAct ? <RetireFlowButton flowId={flowId} /> : <TextLink href={`/signin?next=${encodeURIComponent(`/flows/${encodeURIComponent(flowId)}`)}`}>Sign in to retire it</TextLink>}
      </div>
    </section>
  );
}
