"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of a group's page. */
export default function GroupError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="This consumer group" error={error} reset={reset} />;
}
