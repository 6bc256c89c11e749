"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Acknowledges one alert (signed-in admins only; the server checks again). */
export function AcknowledgeButton({ id }: { id: string }) {
  const router = useRouter();
  const [state, setState] = useState<{ kind: "idle" | "sending" } | { kind: "error"; message: string }>({ kind: "idle" });
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        disabled={state.kind === "sending"}
        onClick={async () => {
          setState({ kind: "sending" });
          const res = await fetch(`/api/alerts/${id}/acknowledge`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => null);
          if (res?.ok) {
            setState({ kind: "idle" });
            router.refresh();
          } else {
            const body = (await res?.json().catch(() => ({}))) as { error?: string } | undefined;
            setState({ kind: "error", message: `${res?.status ?? "network"}: ${body?.error ?? "acknowledge failed"}` });
          }
        }}
        className="rounded border border-current px-2 py-0.5 text-xs font-semibold hover:bg-white/20 focus-visible:outline-2 focus-visible:outline-blue-500 disabled:opacity-60"
      >
        {state.kind === "sending" ? "Acknowledging…" : "Acknowledge"}
      </button>
      {state.kind === "error" ? <span role="alert" className="text-xs">{state.message}</span> : null}
    </span>
  );
}
