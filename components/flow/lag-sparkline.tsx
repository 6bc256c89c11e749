"use client";

import { Line, LineChart, YAxis } from "recharts";
import { ChartContainer, type ChartConfig } from "@/components/ui/chart";

const sparkConfig = {
  lag: { label: "Lag (records)", theme: { light: "oklch(0.55 0.2 27)", dark: "oklch(0.72 0.17 27)" } },
} satisfies ChartConfig;

/** A topic's lag over the selected range, one point per minute; flat at zero when caught up. */
export function LagSparkline({ points, label }: { points: { at: number; lag: number }[]; label: string }) {
  if (points.length < 2) return <span className="text-xs text-zinc-500 dark:text-zinc-400">not enough history yet</span>;
  const max = points.reduce((m, p) => Math.max(m, p.lag), 0);
  return (
    <span className="inline-flex items-center gap-2">
      <ChartContainer config={sparkConfig} className="h-8 w-32" role="img" aria-label={`${label}: lag over time, peak ${max.toLocaleString("en-US")} records`}>
      <LineChart data={points} margin={{ top: 2, right: 2, bottom: 2, left: 2 }}>
        <YAxis hide domain={[0, Math.max(1, max)]} />
        <Line dataKey="lag" type="linear" stroke="var(--color-lag)" strokeWidth={1.5} dot={false} isAnimationActive={false} />
      </LineChart>
      </ChartContainer>
      <span className="w-16 text-xs text-zinc-600 dark:text-zinc-400">peak {max.toLocaleString("en-US")}</span>
    </span>
  );
}
