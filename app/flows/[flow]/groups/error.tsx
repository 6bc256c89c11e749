"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of the groups page. */
export default function GroupsError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="The consumer groups of this flow" error={error} reset={reset} />;
}
