"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Signs out (POST /api/session {"action":"signout"}) and re-renders without admin controls. */
export function SignOutButton() {
  const router = useRouter();
  const [sending, setSending] = useState(false);
  return (
    <button
      type="button"
      disabled={sending}
      onClick={async () => {
        setSending(true);
        try {
          await fetch("/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ action: "signout" }) });
          router.refresh();
        } finally {
          setSending(false);
        }
      }}
      className="rounded px-1 text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-400"
    >
      Sign out
    </button>
  );
}
