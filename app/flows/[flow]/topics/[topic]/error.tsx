"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of the topic page. */
export default function TopicError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="This topic" error={error} reset={reset} />;
}
