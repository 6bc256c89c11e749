"use client";

import { useSyncExternalStore } from "react";
import { CartesianGrid, Line, LineChart, XAxis, YAxis } from "recharts";
import { formatCompact, formatExact } from "@/components/partition/chart-format";
import { ChartContainer, ChartLegend, ChartLegendContent, ChartTooltip, ChartTooltipContent, type ChartConfig } from "@/components/ui/chart";
import type { FlowRereadPoint } from "@/lib/views/flow-rereads";
import { formatTimeTick, formatTimestamp, planTimeAxis } from "@/lib/views/time-range";

const chartConfig = {
  failoverReread: { label: "Replayed on failover (all groups)", theme: { light: "oklch(0.55 0.2 27)", dark: "oklch(0.72 0.17 27)" } },
  reread: { label: "Re-read (MM2 translation)", theme: { light: "oklch(0.6 0.15 60)", dark: "oklch(0.78 0.14 70)" } },
} satisfies ChartConfig;

const noSubscription = () => () => {};

/** Translation accuracy of a whole flow over time: records its consumer groups would re-read on failover. */
export function FlowRereadChart({ points, spanMs }: { points: FlowRereadPoint[]; spanMs: number }) {
  // Recharts draws no SVG on the server (its container has no size there) yet cost every flow page ~1 ms of CPU at
  // 10,000 partitions: the chart comes with hydration, in a box of its size (as the sparklines do: lag-sparkline.tsx).
  const mounted = useSyncExternalStore(noSubscription, () => true, () => false);
  if (points.length < 2) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Not enough history yet: Gapwatch records one sample per poll cycle.</p>;
  if (!mounted) return <div className="h-56 w-full" aria-hidden />;
  const axis = planTimeAxis(points[0]!.at, points.at(-1)!.at, spanMs);
  return (
    <ChartContainer config={chartConfig} className="h-56 w-full" data-testid="flow-reread-chart" role="img" aria-label="Records the flow's consumer groups would re-read on failover, over time">
      <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid vertical={false} strokeDasharray="3 3" />
        <XAxis dataKey="at" type="number" scale="time" domain={["dataMin", "dataMax"]} ticks={axis.ticks} tickFormatter={(v: number) => formatTimeTick(v, axis.unit)} minTickGap={24} stroke="currentColor" />
        <YAxis width={56} tickFormatter={formatCompact} allowDecimals={false} stroke="currentColor" />
        <ChartTooltip content={<ChartTooltipContent labelFormatter={(l) => formatTimestamp(Number(l))} valueFormatter={formatExact} />} />
        <ChartLegend content={<ChartLegendContent />} />
        <Line dataKey="failoverReread" type="linear" stroke="var(--color-failoverReread)" strokeWidth={2} dot={false} isAnimationActive={false} />
        <Line dataKey="reread" type="linear" stroke="var(--color-reread)" strokeWidth={1.5} strokeDasharray="4 3" dot={false} isAnimationActive={false} />
      </LineChart>
    </ChartContainer>
  );
}
