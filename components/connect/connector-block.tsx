import { Pill } from "@/components/ui/pill";
import { Table, Td, Th } from "@/components/ui/table";
import { type ConnectorView, describeRestartUnavailable } from "@/lib/views/connect";
import { RestartTaskButton } from "./restart-task-button";
import { TraceDetails } from "./trace-details";

/**
 * One connector: its state and worker, then a row per task with state, worker, root cause and (admin) restart —
 * or why a restart is unavailable (a Connect cluster read from its internal topics has no REST API to ask).
 */
export function ConnectorBlock(props: { cluster: string; connector: ConnectorView; canAct: boolean; restartUnavailable: string | null }) {
  const { cluster, connector, canAct, restartUnavailable } = props;
  return (
    <div className="border-b border-zinc-200 py-3 last:border-b-0 dark:border-zinc-800" data-testid={`connector-${connector.name}`}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-mono text-sm font-semibold">{connector.name}</h3>
        <Pill tone={connector.tone}>{connector.state}</Pill>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">
          {connector.connectorClass.split(".").at(-1)} · {connector.type} · worker <span className="font-mono">{connector.workerId}</span>
        </span>
      </div>
      <TraceDetails rootCause={connector.rootCause} trace={connector.trace} />
      {connector.tasks.length === 0 ? (
        <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">No tasks: the connector has not started any (check its config and the worker log).</p>
      ) : (
        // On a phone each task is a card: task, state and worker on one line, the details (root cause, restart) below
        // at full width, instead of a column scrolled out of sight.
        <Table className="mt-2 max-sm:block">
          <thead className="max-sm:hidden">
            <tr>
              <Th className="w-16">Task</Th>
              <Th className="w-32">State</Th>
              <Th className="w-48">Worker</Th>
              <Th>Details</Th>
            </tr>
          </thead>
          <tbody className="max-sm:block">
            {connector.tasks.map((t) => (
              <tr key={t.id} data-testid={`task-${connector.name}-${t.id}`} className="align-top max-sm:grid max-sm:grid-cols-[auto_auto_1fr] max-sm:border-b max-sm:border-zinc-100 max-sm:dark:border-zinc-800/60">
                <Td className="font-mono max-sm:border-0">
                  <span className="sm:hidden">task </span>
                  {t.id}
                </Td>
                <Td className="max-sm:border-0">
                  <Pill tone={t.tone}>{t.state}</Pill>
                </Td>
                <Td className="font-mono text-xs max-sm:border-0 max-sm:[overflow-wrap:anywhere]">{t.workerId}</Td>
                <Td className="max-sm:col-span-3 max-sm:border-0">
                  {t.state === "FAILED" && restartUnavailable !== null ? (
                    <p className="text-xs text-zinc-600 dark:text-zinc-400">{describeRestartUnavailable(cluster, { connector: connector.name, taskId: t.id })}</p>
                  ) : null}
                  {t.state === "FAILED" && restartUnavailable === null && canAct ? <RestartTaskButton cluster={cluster} connector={connector.name} taskId={t.id} /> : null}
                  {t.state === "FAILED" && restartUnavailable === null && !canAct ? <span className="text-xs text-zinc-600 dark:text-zinc-400">Sign in to restart this task.</span> : null}
                  <TraceDetails rootCause={t.rootCause} trace={t.trace} />
                  {t.state !== "FAILED" && !t.trace ? <span className="text-xs text-zinc-500 dark:text-zinc-400">—</span> : null}
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}
