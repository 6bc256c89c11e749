"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of the Connect page. */
export default function ConnectError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="The Connect page" error={error} reset={reset} />;
}
