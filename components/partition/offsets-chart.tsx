"use client";

import { CartesianGrid, Line, LineChart, ReferenceArea, ReferenceLine, XAxis, YAxis } from "recharts";
import { ChartContainer, ChartLegend, ChartLegendContent, ChartTooltip, ChartTooltipContent, type ChartConfig } from "@/components/ui/chart";
import type { EventMark, LossGap, OffsetPoint, ResetMark } from "@/lib/views/partition";
import { formatTimeTick, formatTimestamp, planTimeAxis } from "@/lib/views/time-range";
import { formatCompact, formatExact } from "./chart-format";

const offsetsConfig = {
  sourceLogStart: { label: "Source log start", theme: { light: "oklch(0.55 0.02 260)", dark: "oklch(0.75 0.02 260)" } },
  sourceLogEnd: { label: "Source log end", theme: { light: "oklch(0.5 0.17 250)", dark: "oklch(0.72 0.14 250)" } },
  mm2Position: { label: "MM2 position", theme: { light: "oklch(0.55 0.16 150)", dark: "oklch(0.75 0.16 150)" } },
  targetLogEnd: { label: "Target log end", theme: { light: "oklch(0.6 0.16 60)", dark: "oklch(0.8 0.14 75)" } },
} satisfies ChartConfig;

/** Series often coincide (caught-up replication): width and dash tell them apart where they overlap. */
const strokes: Record<keyof typeof offsetsConfig, { width: number; dash?: string }> = {
  sourceLogStart: { width: 2 },
  sourceLogEnd: { width: 4 },
  mm2Position: { width: 2, dash: "6 4" },
  targetLogEnd: { width: 1.5, dash: "2 3" },
};
const series = Object.keys(offsetsConfig) as (keyof typeof offsetsConfig)[];

/** MM2 events are not losses: grey for a re-copy, amber for a position moved by hand. */
const eventColors: Record<EventMark["kind"], string> = {
  redelivery: "oklch(0.55 0.02 260)",
  "moved-back": "oklch(0.6 0.14 70)",
  "moved-forward": "oklch(0.6 0.14 70)",
};

interface OffsetsChartProps {
  points: OffsetPoint[];
  gaps: LossGap[];
  resets: ResetMark[];
  events: EventMark[];
  spanMs: number;
}

/** Where recharts puts a label beside a vertical line. */
interface EventLabel {
  value: string;
  position: `${"insideBottom" | "insideTop"}${"Left" | "Right"}`;
}

/**
 * Text beside each event line (null: none). One event: its label. Several: their numbers, matching
 * the list below the chart; events closer than 3% of the axis to the first of a group share one
 * label ("1–3") so numbers never pile up, and groups alternate between the bottom and the top.
 */
function labelEventLines(events: readonly EventMark[], spanMs: number, middle: number): (EventLabel | null)[] {
  const side = (at: number) => (at > middle ? "Right" : "Left");
  if (events.length === 1) return [{ value: events[0]!.label, position: `insideBottom${side(events[0]!.at)}` }];
  const labels: (EventLabel | null)[] = [];
  let groupStart = 0;
  let groups = 0;
  events.forEach((e, i) => {
    if (i > 0 && e.at - events[groupStart]!.at <= spanMs * 0.03) {
      labels.push(null);
      labels[groupStart] = { ...labels[groupStart]!, value: `${groupStart + 1}–${i + 1}` };
      return;
    }
    groupStart = i;
    const edge = groups++ % 2 === 0 ? "insideBottom" : "insideTop";
    labels.push({ value: String(i + 1), position: `${edge}${side(e.at)}` });
  });
  return labels;
}

/**
 * Offsets over time. Red areas: records deleted at the source before MM2 copied them (the exact
 * range of a DATA_LOSS alert). Purple dashed lines: TOPIC_RESET alerts. Grey / amber dashed lines,
 * labelled at the bottom: MM2 copied records again (MM2_REDELIVERY) or its position was moved by
 * hand (MM2_POSITION_MOVED), numbered when there are several.
 */
export function OffsetsChart({ points, gaps, resets, events, spanMs }: OffsetsChartProps) {
  // A gap is often a few seconds wide on an hour-long axis: its label goes beside it, towards the middle.
  const middle = ((points[0]?.at ?? 0) + (points.at(-1)?.at ?? 0)) / 2;
  const eventLabels = labelEventLines(events, spanMs, middle);
  const axis = planTimeAxis(points[0]?.at ?? 0, points.at(-1)?.at ?? 0, spanMs);
  return (
    <ChartContainer config={offsetsConfig} className="h-80 w-full" data-testid="offsets-chart">
      <LineChart data={points} margin={{ top: 16, right: 16, bottom: 0, left: 8 }} accessibilityLayer>
        <CartesianGrid vertical={false} />
        <XAxis dataKey="at" type="number" scale="time" domain={["dataMin", "dataMax"]} ticks={axis.ticks} tickFormatter={(v: number) => formatTimeTick(v, axis.unit)} minTickGap={24} stroke="currentColor" />
        <YAxis tickFormatter={formatCompact} width={56} domain={["auto", "auto"]} stroke="currentColor" />
        <ChartTooltip content={<ChartTooltipContent labelFormatter={(l) => (typeof l === "number" ? formatTimestamp(l) : null)} valueFormatter={formatExact} />} />
        <ChartLegend content={<ChartLegendContent />} />
        {gaps.map((g) => (
          <ReferenceArea
            key={`loss-${g.from}`}
            x1={g.from}
            x2={g.to}
            y1={g.lowOffset}
            y2={g.highOffset}
            fill="oklch(0.6 0.22 27)"
            fillOpacity={0.3}
            stroke="oklch(0.55 0.22 27)"
            label={{ value: `data loss: ${g.records} records`, position: g.from > middle ? "left" : "right", fill: "oklch(0.55 0.22 27)", fontSize: 12, fontWeight: 600 }}
            ifOverflow="extendDomain"
          />
        ))}
        {resets.map((r) => (
          <ReferenceLine key={`reset-${r.at}`} x={r.at} stroke="oklch(0.6 0.2 300)" strokeDasharray="4 3" label={{ value: r.label, position: r.at > middle ? "insideTopRight" : "insideTopLeft", fill: "oklch(0.6 0.2 300)", fontSize: 12, fontWeight: 600 }} />
        ))}
        {events.map((e, i) => {
          const label = eventLabels[i];
          return (
            <ReferenceLine
              key={`event-${e.kind}-${e.at}`}
              x={e.at}
              stroke={eventColors[e.kind]}
              strokeDasharray="2 4"
              strokeWidth={1.5}
              label={label ? { value: label.value, position: label.position, fill: eventColors[e.kind], fontSize: 12, fontWeight: 700 } : undefined}
            />
          );
        })}
        {series.map((key) => (
          <Line key={key} dataKey={key} type="linear" stroke={`var(--color-${key})`} strokeWidth={strokes[key].width} strokeDasharray={strokes[key].dash} dot={false} isAnimationActive={false} connectNulls={false} />
        ))}
      </LineChart>
    </ChartContainer>
  );
}
