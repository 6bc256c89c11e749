"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

type Phase = { kind: "idle" } | { kind: "confirm" } | { kind: "sending" } | { kind: "done"; message: string } | { kind: "error"; message: string };

const buttonClass = "rounded border px-2 py-0.5 text-xs font-semibold focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-500 disabled:opacity-60";

/**
 * Restarts one FAILED task after a confirmation step. Rendered only for a signed-in admin (the
 * server decides); the API checks the session and origin again.
 */
export function RestartTaskButton({ cluster, connector, taskId }: { cluster: string; connector: string; taskId: number }) {
  const router = useRouter();
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const url = `/api/connect/${encodeURIComponent(cluster)}/connectors/${encodeURIComponent(connector)}/tasks/${taskId}/restart`;

  const restart = async () => {
    setPhase({ kind: "sending" });
    try {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      const body = (await response.json().catch(() => ({}))) as { error?: string };
      if (response.status === 202) {
        setPhase({ kind: "done", message: "Restart requested; the state updates with the next poll." });
        router.refresh();
      } else {
        setPhase({ kind: "error", message: `${response.status}: ${body.error ?? "restart failed"}${response.status === 401 ? " — sign in again." : ""}` });
      }
    } catch (err) {
      setPhase({ kind: "error", message: err instanceof Error ? err.message : "network error" });
    }
  };

  if (phase.kind === "confirm" || phase.kind === "sending") {
    return (
      <span className="inline-flex flex-wrap items-center gap-2 text-xs" role="group" aria-label={`Confirm restart of task ${taskId}`}>
        <span>
          Restart task {taskId} of <span className="font-mono">{connector}</span>?
        </span>
        <button type="button" onClick={restart} disabled={phase.kind === "sending"} className={`${buttonClass} border-red-500 bg-red-600 text-white hover:bg-red-700`}>
          {phase.kind === "sending" ? "Restarting…" : "Confirm restart"}
        </button>
        <button type="button" onClick={() => setPhase({ kind: "idle" })} disabled={phase.kind === "sending"} className={`${buttonClass} border-zinc-300 hover:bg-zinc-100 dark:border-zinc-600 dark:hover:bg-zinc-800`}>
          Cancel
        </button>
      </span>
    );
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-2 text-xs">
      <button
        type="button"
        onClick={() => setPhase({ kind: "confirm" })}
        aria-label={`Restart failed task ${taskId} of ${connector}`}
        className={`${buttonClass} border-red-400 text-red-800 hover:bg-red-50 dark:border-red-700 dark:text-red-200 dark:hover:bg-red-950`}
      >
        Restart failed task
      </button>
      {phase.kind === "done" ? <span role="status" className="text-green-800 dark:text-green-300">{phase.message}</span> : null}
      {phase.kind === "error" ? <span role="alert" className="text-red-800 dark:text-red-300">{phase.message}</span> : null}
    </span>
  );
}
