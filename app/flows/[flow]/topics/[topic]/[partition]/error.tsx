"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of the partition page. */
export default function PartitionError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="This partition" error={error} reset={reset} />;
}
