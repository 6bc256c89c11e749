"use client";

import { Area, AreaChart, CartesianGrid, XAxis, YAxis } from "recharts";
import { ChartContainer, ChartTooltip, ChartTooltipContent, type ChartConfig } from "@/components/ui/chart";
import type { OffsetPoint } from "@/lib/views/partition";
import { formatTimeTick, formatTimestamp, planTimeAxis } from "@/lib/views/time-range";
import { formatCompact, formatExact } from "./chart-format";

const lagConfig = {
  lag: { label: "Lag (records)", theme: { light: "oklch(0.55 0.2 27)", dark: "oklch(0.72 0.17 27)" } },
} satisfies ChartConfig;

/** Records at the source not yet replicated, over time. */
export function LagChart({ points, spanMs }: { points: OffsetPoint[]; spanMs: number }) {
  const axis = planTimeAxis(points[0]?.at ?? 0, points.at(-1)?.at ?? 0, spanMs);
  return (
    <ChartContainer config={lagConfig} className="h-48 w-full" data-testid="lag-chart">
      <AreaChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 8 }} accessibilityLayer>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="at" type="number" scale="time" domain={["dataMin", "dataMax"]} ticks={axis.ticks} tickFormatter={(v: number) => formatTimeTick(v, axis.unit)} minTickGap={24} stroke="currentColor" />
        <YAxis tickFormatter={formatCompact} width={56} allowDecimals={false} stroke="currentColor" />
        <ChartTooltip content={<ChartTooltipContent labelFormatter={(l) => (typeof l === "number" ? formatTimestamp(l) : null)} valueFormatter={formatExact} />} />
        <Area dataKey="lag" type="stepAfter" stroke="var(--color-lag)" fill="var(--color-lag)" fillOpacity={0.2} strokeWidth={2} isAnimationActive={false} />
      </AreaChart>
    </ChartContainer>
  );
}
