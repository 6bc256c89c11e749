import { cookies, headers } from "next/headers";
import Image from "next/image";
import Link from "next/link";
import { SignOutButton } from "@/components/connect/sign-out-button";
import { readIdentity } from "@/lib/auth/session";
import { ThemeToggle } from "./theme-toggle";

const links = [
  { href: "/", label: "Overview" },
  { href: "/connect", label: "Connect" },
  { href: "/alerts", label: "Alerts" },
  { href: "/risks", label: "Risks" },
];

/** Top bar: product name, main sections, sign-in status, theme toggle. */
export async function SiteHeader() {
  const identity = readIdentity(await headers(), await cookies());
  return (
    <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-2">
        <Link href="/" className="flex items-center gap-2 text-lg font-bold tracking-tight">
          <Image src="/logo.svg" alt="" width={24} height={24} unoptimized priority />
          Gapwatch
        </Link>
        <nav aria-label="Main" className="flex gap-4 text-sm">
          {links.map((l) => (
            <Link key={l.href} href={l.href} className="rounded px-1 text-zinc-700 hover:text-zinc-950 focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-zinc-300 dark:hover:text-white">
              {l.label}
            </Link>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-4">
          <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="session-status">
            {identity?.via === "session" ? (
              <>
                Signed in as admin · <SignOutButton />
              </>
            ) : identity ? (
              // Named by the trusted proxy (server.proxyAuth): signing out happens there.
              <span>
                {identity.user} ({identity.role})
              </span>
            ) : (
              <Link href="/signin" className="rounded px-1 text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-400">
                Sign in to act
              </Link>
            )}
          </span>
          <ThemeToggle />
        </div>
      </div>
    </header>
  );
}
