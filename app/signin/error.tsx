"use client";

import { RouteErrorPanel } from "@/components/flow/route-error-panel";

/** Error boundary of the sign-in page. */
export default function SignInError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteErrorPanel what="The sign-in page" error={error} reset={reset} />;
}
