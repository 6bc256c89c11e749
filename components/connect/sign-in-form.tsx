"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

/** Only same-site paths may be returned to after sign-in (no open redirect). */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/connect";
}

/**
 * The admin sign-in: posts the secret as JSON to /api/session (same-origin, so it passes the
 * CSRF check); the server answers with an HttpOnly cookie the page never sees.
 */
export function SignInForm({ next }: { next?: string }) {
  const router = useRouter();
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSending(true);
    setError(null);
    try {
      const response = await fetch("/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ secret }) });
      if (response.ok) {
        setSecret("");
        router.push(safeNext(next));
        router.refresh();
        return;
      }
      const body = (await response.json().catch(() => ({}))) as { error?: string };
      setError(response.status === 401 ? "That is not the admin secret." : (body.error ?? `sign-in failed (${response.status})`));
    } catch (err) {
      setError(err instanceof Error ? err.message : "network error");
    } finally {
      setSending(false);
    }
  };

  return (
    <form onSubmit={submit} className="space-y-3" aria-describedby={error ? "signin-error" : undefined}>
      <label className="block text-sm font-medium">
        Admin secret
        <input
          type="password"
          name="secret"
          autoComplete="current-password"
          required
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          className="mt-1 block w-full rounded border border-zinc-300 bg-white px-2 py-1.5 font-mono focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-950"
        />
      </label>
      {error ? (
        <p id="signin-error" role="alert" className="text-sm text-red-800 dark:text-red-300">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={sending || secret.length === 0} className="rounded bg-zinc-900 px-3 py-1.5 text-sm font-semibold text-white hover:bg-zinc-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300">
        {sending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
