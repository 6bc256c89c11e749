import type { ReactNode } from "react";

/** A labelled figure inside a <dl>: small label, large monospace value. */
export function Stat({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div data-slot="stat">
      <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="font-mono text-base font-semibold">{value}</dd>
    </div>
  );
}
