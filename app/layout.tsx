import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AlertBanner } from "@/components/alerts/alert-banner";
import { SiteHeader } from "@/components/layout/site-header";
import { StaleDataBanner } from "@/components/layout/stale-data-banner";
import { themeBootScript } from "@/components/layout/theme-toggle";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Gapwatch", template: "%s · Gapwatch" },
  description: "MirrorMaker 2 replication health: lag, data loss, topic resets, task failures and failover re-reads.",
  icons: { icon: "/logo.svg" },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: themeBootScript }} />
      </head>
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <SiteHeader />
        <StaleDataBanner />
        <AlertBanner />
        <main className="mx-auto max-w-7xl px-4 py-4">{children}</main>
      </body>
    </html>
  );
}
