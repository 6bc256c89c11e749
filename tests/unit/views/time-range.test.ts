import { describe, expect, it } from "vitest";
import { formatTimeTick, planTimeAxis, timeRanges } from "@/lib/views/time-range";

const t0 = Date.UTC(2026, 11, 1, 14, 3, 17); // 2026-12-01 14:03:17 UTC, off any round time
const labels = (first: number, last: number, spanMs: number) => {
  const axis = planTimeAxis(first, last, spanMs);
  return axis.ticks.map((t) => formatTimeTick(t, axis.unit));
};

describe("planTimeAxis + formatTimeTick", () => {
  it("labels a 15-minute chart with seconds, every 5 minutes on round times", () => {
    const span = timeRanges["15m"].ms;
    expect(planTimeAxis(t0, t0 + span, span)).toEqual({
      ticks: [Date.UTC(2026, 11, 1, 14, 5), Date.UTC(2026, 11, 1, 14, 10), Date.UTC(2026, 11, 1, 14, 15)],
      unit: "seconds",
    });
    expect(labels(t0, t0 + span, span)).toEqual(["14:05:00", "14:10:00", "14:15:00"]);
  });

  it("labels 1 h and 24 h charts with hours and minutes, never the same label twice", () => {
    const hour = timeRanges["1h"].ms;
    expect(labels(t0, t0 + hour, hour)).toEqual(["14:10", "14:20", "14:30", "14:40", "14:50", "15:00"]);
    const day = timeRanges["24h"].ms;
    expect(labels(t0, t0 + day, day)).toEqual(["18:00", "00:00", "06:00", "12:00"]);
  });

  it("labels a 7-day chart with the day and time, a tick every 2 days", () => {
    const week = timeRanges["7d"].ms;
    expect(labels(t0, t0 + week, week)).toEqual(["Dec 3 00:00", "Dec 5 00:00", "Dec 7 00:00"]);
  });

  it("falls back to seconds when the points span under a minute, whatever the range (no repeated HH:MM)", () => {
    // Two poll cycles, 10 s apart, on a fresh 1 h chart: "14:03" twice would say nothing.
    const hour = timeRanges["1h"].ms;
    expect(planTimeAxis(t0, t0 + 40_000, hour)).toEqual({ ticks: [t0 + 3_000, t0 + 13_000, t0 + 23_000, t0 + 33_000], unit: "seconds" });
    expect(labels(t0, t0 + 40_000, hour)).toEqual(["14:03:20", "14:03:30", "14:03:40", "14:03:50"]);
  });

  it("never gives more ticks than asked, and all labels differ, over every range and many extents", () => {
    for (const { ms } of Object.values(timeRanges)) {
      for (const extent of [0, 9_000, 61_000, 7 * 60_000, ms / 3, ms]) {
        const axis = planTimeAxis(t0, t0 + extent, ms);
        expect(axis.ticks.length).toBeLessThanOrEqual(6);
        const texts = axis.ticks.map((t) => formatTimeTick(t, axis.unit));
        expect(new Set(texts).size).toBe(texts.length);
        for (const t of axis.ticks) expect(t >= t0 && t <= t0 + extent).toBe(true);
      }
    }
  });
});
