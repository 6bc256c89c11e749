"use client";

import { useState } from "react";
import { CartesianGrid, Line, LineChart, XAxis, YAxis } from "recharts";
import { ChartContainer, ChartLegend, ChartLegendContent, ChartTooltip, ChartTooltipContent, type ChartConfig } from "@/components/ui/chart";
import type { RereadChartSeries } from "@/lib/views/groups";
import { formatTimeTick, formatTimestamp, planTimeAxis } from "@/lib/views/time-range";

const chartConfig = {
  failoverReread: { label: "Replayed on failover", theme: { light: "oklch(0.55 0.2 27)", dark: "oklch(0.72 0.17 27)" } },
  reread: { label: "Re-read (MM2 translation)", theme: { light: "oklch(0.6 0.15 60)", dark: "oklch(0.78 0.14 70)" } },
  lag: { label: "Group lag (source)", theme: { light: "oklch(0.5 0.15 250)", dark: "oklch(0.72 0.13 250)" } },
} satisfies ChartConfig;

const inputClass = "rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-900";

/** Re-read counts against the group's lag over time, for the whole group or one partition. */
export function RereadChart({ series, spanMs }: { series: RereadChartSeries[]; spanMs: number }) {
  const [key, setKey] = useState(series[0]?.key ?? "total");
  const chosen = series.find((s) => s.key === key) ?? series[0];
  const points = chosen?.points ?? [];
  const axis = planTimeAxis(points[0]?.at ?? 0, points.at(-1)?.at ?? 0, spanMs);
  return (
    <div>
      <label className="mb-2 flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        Show
        <select value={key} onChange={(e) => setKey(e.target.value)} className={inputClass}>
          {series.map((s) => (
            <option key={s.key} value={s.key}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      {points.length < 2 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Not enough history yet: Gapwatch records one sample per poll cycle.</p>
      ) : (
        <ChartContainer config={chartConfig} className="h-64 w-full" data-testid="reread-chart" role="img" aria-label={`Re-read records and group lag over time, ${chosen?.label ?? ""}`}>
          <LineChart data={points} margin={{ top: 8, right: 12, bottom: 4, left: 4 }}>
            <CartesianGrid vertical={false} strokeDasharray="3 3" />
            <XAxis dataKey="at" type="number" scale="time" domain={["dataMin", "dataMax"]} ticks={axis.ticks} tickFormatter={(v: number) => formatTimeTick(v, axis.unit)} minTickGap={24} />
            <YAxis width={64} tickFormatter={(v: number) => v.toLocaleString("en-US")} />
            <ChartTooltip content={<ChartTooltipContent labelFormatter={(l) => formatTimestamp(Number(l))} valueFormatter={(v) => (typeof v === "number" ? v.toLocaleString("en-US") : "—")} />} />
            <ChartLegend content={<ChartLegendContent />} />
            <Line dataKey="failoverReread" type="monotone" stroke="var(--color-failoverReread)" strokeWidth={2} dot={false} isAnimationActive={false} connectNulls />
            <Line dataKey="reread" type="monotone" stroke="var(--color-reread)" strokeWidth={1.5} dot={false} isAnimationActive={false} connectNulls />
            <Line dataKey="lag" type="monotone" stroke="var(--color-lag)" strokeWidth={1.5} strokeDasharray="4 3" dot={false} isAnimationActive={false} connectNulls />
          </LineChart>
        </ChartContainer>
      )}
    </div>
  );
}
