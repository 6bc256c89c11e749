import type { Metadata } from "next";
import { cookies } from "next/headers";
import { SignInForm } from "@/components/connect/sign-in-form";
import { PageHeader } from "@/components/layout/page-header";
import { Card, CardContent, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";
import { readAdminSecret, readSession } from "@/lib/auth/session";
import { readRequestTime } from "@/lib/views/clock";
import { readLatestSnapshot } from "@/lib/views/runtime-data";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

/** Admin sign-in. Gapwatch is read-only without it; signing in enables restarting failed Connect tasks. */
export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = (await searchParams).next;
  const now = readRequestTime();
  const session = readSession(await cookies(), now);
  const header = <PageHeader title="Admin sign-in" subtitle="Read-only by default" updatedAt={readLatestSnapshot()?.takenAt ?? null} now={now} />;
  if (!readAdminSecret()) {
    return (
      <>
        {header}
        <EmptyState tone="warn" title="Admin sign-in is disabled" className="mx-auto max-w-md">
          <p>
            No admin secret is configured, so Gapwatch stays read-only. To enable it, set <code>admin.secret: ${"{GAPWATCH_ADMIN_SECRET}"}</code> in the config and start the server with
            that environment variable (at least 12 characters).
          </p>
        </EmptyState>
      </>
    );
  }
  return (
    <>
      {header}
      <Card className="mx-auto max-w-md">
        <CardHeader>
          <h2 className="text-base font-semibold">Sign in as admin</h2>
        </CardHeader>
        <CardContent className="space-y-3">
          {session ? (
            <p className="text-sm" role="status">
              You are signed in (until {new Date(session.expiresAt).toISOString().slice(11, 16)} UTC). Go to the <TextLink href="/connect">Connect page</TextLink> to act.
            </p>
          ) : null}
          <p className="text-sm text-zinc-600 dark:text-zinc-400">Gapwatch is read-only by default. Signing in with the admin secret lets you restart failed Connect tasks for 8 hours.</p>
          <SignInForm next={typeof next === "string" ? next : undefined} />
        </CardContent>
      </Card>
    </>
  );
}
