"use client";

import { createContext, useContext, useId, type ComponentProps, type ReactNode } from "react";
import { Legend, ResponsiveContainer, Tooltip, type LegendPayload, type TooltipContentProps } from "recharts";
import { cn } from "@/lib/utils";

/**
 * shadcn-style chart primitives (after shadcn-ui/ui apps/v4 registry/new-york-v4/ui/chart.tsx):
 * a `ChartConfig` maps each series key to its label and colour; `ChartContainer` publishes the
 * colours as CSS variables `--color-<key>` (light and dark), so series use `var(--color-<key>)`
 * and the tooltip and legend read labels from the config. Data always comes in as props.
 */
export type ChartConfig = Record<string, { label: ReactNode; color?: string; theme?: { light: string; dark: string } }>;

const ChartContext = createContext<ChartConfig | null>(null);

function useChartConfig(): ChartConfig {
  const config = useContext(ChartContext);
  if (!config) throw new Error("chart parts must be used inside <ChartContainer>");
  return config;
}

/** The chart frame: sets the colour variables and makes the Recharts chart fill its box (give it a width and height via className). */
export function ChartContainer({ config, className, children, ...props }: ComponentProps<"div"> & { config: ChartConfig; children: ComponentProps<typeof ResponsiveContainer>["children"] }) {
  const id = `chart-${useId().replace(/[^a-zA-Z0-9-]/g, "")}`;
  return (
    <ChartContext.Provider value={config}>
      <div data-slot="chart" data-chart={id} className={cn("text-xs text-zinc-600 dark:text-zinc-400 [&_.recharts-text]:fill-current", className)} {...props}>
        <ChartStyle id={id} config={config} />
        <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 256 }}>
          {children}
        </ResponsiveContainer>
      </div>
    </ChartContext.Provider>
  );
}

function ChartStyle({ id, config }: { id: string; config: ChartConfig }) {
  const entries = Object.entries(config).filter(([, c]) => c.color || c.theme);
  if (entries.length === 0) return null;
  const vars = (mode: "light" | "dark") => entries.map(([key, c]) => `  --color-${key}: ${c.theme ? c.theme[mode] : c.color};`).join("\n");
  const css = `[data-chart=${id}] {\n${vars("light")}\n}\n.dark [data-chart=${id}] {\n${vars("dark")}\n}`;
  return <style dangerouslySetInnerHTML={{ __html: css }} />;
}

export const ChartTooltip = Tooltip;
export const ChartLegend = Legend;

/** Tooltip body: the label (formatted by `labelFormatter`) then one line per series with its config label. */
export function ChartTooltipContent({ active, payload, label, labelFormatter, valueFormatter }: Partial<TooltipContentProps> & { labelFormatter?: (label: unknown) => ReactNode; valueFormatter?: (value: unknown) => ReactNode }) {
  const config = useChartConfig();
  if (!active || !payload || payload.length === 0) return null;
  const heading = labelFormatter ? labelFormatter(label) : label;
  return (
    <div className="min-w-40 rounded border border-zinc-200 bg-white px-2.5 py-1.5 text-xs text-zinc-900 shadow-md dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100">
      {heading !== undefined && heading !== null ? <div className="mb-1 font-medium">{heading}</div> : null}
      {payload.map((item) => {
        const key = String(item.dataKey ?? item.name ?? "");
        return (
          <div key={key} className="flex items-center justify-between gap-3">
            <span className="flex items-center gap-1.5">
              <span className="inline-block size-2.5 rounded-sm" style={{ background: item.color ?? `var(--color-${key})` }} aria-hidden />
              {config[key]?.label ?? key}
            </span>
            <span className="font-mono tabular-nums">{valueFormatter ? valueFormatter(item.value) : String(item.value ?? "—")}</span>
          </div>
        );
      })}
    </div>
  );
}

/** Legend body: a swatch and the config label per series. */
export function ChartLegendContent({ payload }: { payload?: readonly LegendPayload[] }) {
  const config = useChartConfig();
  if (!payload?.length) return null;
  // Config order, not Recharts' order: the config lists series the way the chart means them.
  const order = Object.keys(config);
  const rank = (item: LegendPayload) => {
    const i = order.indexOf(String(item.dataKey ?? item.value ?? ""));
    return i === -1 ? order.length : i;
  };
  const items = [...payload].sort((a, b) => rank(a) - rank(b));
  return (
    <ul className="flex flex-wrap items-center justify-center gap-4 pt-2">
      {items.map((item) => {
        const key = String(item.dataKey ?? item.value ?? "");
        return (
          <li key={key} className="flex items-center gap-1.5">
            <span className="inline-block size-2.5 rounded-sm" style={{ background: item.color ?? `var(--color-${key})` }} aria-hidden />
            {config[key]?.label ?? item.value}
          </li>
        );
      })}
    </ul>
  );
}
