"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Retires a flow whose MirrorSourceConnector is gone (signed-in admins only; the server checks again). */
export function RetireFlowButton({ flowId }: { flowId: string }) {
  const router = useRouter();
  const [state, setState] = useState<{ kind: "idle" | "sending" | "done" } | { kind: "error"; message: string }>({ kind: "idle" });
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        disabled={state.kind === "sending" || state.kind === "done"}
        onClick={async () => {
          if (!window.confirm(`Retire flow ${flowId}? Gapwatch stops watching it until its connector is created again.`)) return;
          setState({ kind: "sending" });
          const url = `/api/flows/${encodeURIComponent(flowId)}/retire`;
          const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => null);
          if (res?.ok) {
            setState({ kind: "done" });
            router.refresh();
          } else {
            const body = (await res?.json().catch(() => ({}))) as { error?: string } | undefined;
            setState({ kind: "error", message: `${res?.status ?? "network"}: ${body?.error ?? "retire failed"}` });
          }
        }}
        className="rounded border border-current px-2 py-0.5 text-xs font-semibold focus-visible:outline-2 focus-visible:outline-blue-500 disabled:opacity-60"
      >
        {state.kind === "sending" ? "Retiring…" : state.kind === "done" ? "Retired at the next cycle" : "Retire flow"}
      </button>
      {state.kind === "error" ? <span role="alert" className="text-xs">{state.message}</span> : null}
    </span>
  );
}
