"use client";

import { CartesianGrid, Line, LineChart, XAxis, YAxis } from "recharts";
import { ChartContainer, ChartTooltip, ChartTooltipContent, type ChartConfig } from "@/components/ui/chart";
import { formatCompact, formatExact } from "./chart-format";

const syncConfig = {
  downstreamValue: { label: "Downstream offset", theme: { light: "oklch(0.5 0.17 250)", dark: "oklch(0.72 0.14 250)" } },
} satisfies ChartConfig;

/** Offset syncs as a step line: upstream offset (x) → downstream offset (y), oldest to newest. */
export function SyncChart({ points }: { points: { upstreamValue: number; downstreamValue: number }[] }) {
  return (
    <ChartContainer config={syncConfig} className="h-56 w-full" data-testid="sync-chart">
      <LineChart data={points} margin={{ top: 8, right: 16, bottom: 16, left: 8 }} accessibilityLayer>
        <CartesianGrid />
        <XAxis dataKey="upstreamValue" type="number" domain={["dataMin", "dataMax"]} tickFormatter={formatCompact} stroke="currentColor" label={{ value: "upstream offset", position: "insideBottom", offset: -10, fill: "currentColor" }} />
        <YAxis tickFormatter={formatCompact} width={56} domain={["dataMin", "dataMax"]} stroke="currentColor" />
        <ChartTooltip content={<ChartTooltipContent labelFormatter={(l) => `upstream ${formatExact(l)}`} valueFormatter={formatExact} />} />
        <Line dataKey="downstreamValue" type="stepAfter" stroke="var(--color-downstreamValue)" strokeWidth={2} dot={{ r: 2.5, fill: "var(--color-downstreamValue)" }} isAnimationActive={false} />
      </LineChart>
    </ChartContainer>
  );
}
