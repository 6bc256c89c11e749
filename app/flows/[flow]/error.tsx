"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of the flow page. */
export default function FlowError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="This flow" error={error} reset={reset} />;
}
