import { describe, expect, it } from "vitest";
import type { CycleSizeResult } from "@/scripts/bench/pipeline-cycle";
import { summarizeLatency } from "@/scripts/bench/detection-latency";
import { failedInjection, type InjectionResult, type ScenarioName } from "@/scripts/bench/measure-injection";
import { createReport } from "@/scripts/bench/report";
import { summarize } from "@/scripts/bench/stats";
import { judgeTargets, type TargetVerdict } from "@/scripts/bench/targets";

const find = (verdicts: TargetVerdict[], start: string) => {
  const found = verdicts.find((v) => v.what.startsWith(start));
  if (!found) throw new Error(`no verdict starting "${start}" in ${verdicts.map((v) => v.what).join(" | ")}`);
  return found;
};

const cycleAt = (partitions: number, cpuMs: number[], peakRssMiB: number): CycleSizeResult => ({
  store: "sqlite",
  partitions,
  warmupCycles: 3,
  cycles: cpuMs.length,
  cpuMs: summarize(cpuMs),
  wallMs: summarize(cpuMs),
  storeWallMs: summarize([1]),
  storeCallsPerCycle: 10,
  storeRowsPerCycle: 100,
  storeErrors: 0,
  alerts: 0,
  peakRssMiB,
  storeSizeMiB: 1,
});

describe("judgeTargets", () => {
  it("says not measured, never met, for every phase that did not run", () => {
    const verdicts = judgeTargets(createReport());
    expect(verdicts.length).toBe(19);
    expect(new Set(verdicts.map((v) => v.verdict))).toEqual(new Set(["not measured"]));
  });

  it("puts the previous version's figure beside the whole pipeline's, and judges 1M against ×12 of 100k", () => {
    const report = createReport();
    report.cycle = { sizes: [cycleAt(100_012, [200, 240, 260], 500)] };
    report.previous = { ref: "94ef88c", commit: "94ef88cab69b", synthetic: null, cycle: { sizes: [cycleAt(100_012, [2400, 2538, 2600], 2697)] } };
    const verdicts = judgeTargets(report);
    expect(find(verdicts, "whole pipeline CPU per cycle")).toMatchObject({ measured: "240 ms", previous: "2538 ms", verdict: "met" });
    expect(find(verdicts, "peak RSS, whole pipeline")).toMatchObject({ measured: "524 MB", previous: "2828 MB", verdict: "met" });
    // A previous version whose bench did not time the publication has no figure beside it.
    expect(find(verdicts, "read model publication")).toMatchObject({ measured: "not measured", verdict: "not measured" });
    expect(find(verdicts, "read model publication").previous).toBeUndefined();
    report.cycle.sizes[0]!.publishCpuMs = summarize([3900, 4100, 4000]);
    expect(find(judgeTargets(report), "read model publication")).toMatchObject({
      what: "read model publication (encode + store write) CPU per cycle, median, 100,012 partitions", measured: "4000 ms", verdict: "reported",
    });
    // A web instance's decode of the published row, judged on its wall time; the store's read of the row beside it.
    expect(find(judgeTargets(report), "published read model decoded")).toMatchObject({ verdict: "not measured" });
    Object.assign(report.cycle.sizes[0]!, {
      webReadCpuMs: summarize([180, 200, 220]), webDecodeCpuMs: summarize([70, 80, 90]), webDecodeWallMs: summarize([40, 101, 50]),
    });
    expect(find(judgeTargets(report), "published read model decoded")).toMatchObject({
      what: "published read model decoded by a web instance, median, 100,012 partitions", target: "≤ 100 ms",
      measured: "50 ms (80 ms CPU; the row's read from SQLite 200 ms CPU more)", verdict: "met",
    });
    report.cycle.sizes[0]!.webDecodeWallMs = summarize([101, 120, 40]);
    expect(find(judgeTargets(report), "published read model decoded")).toMatchObject({ verdict: "NOT met" });
    report.synthetic = { fixture: "f", sizes: [], growth: { cpu: 12.5, heap: 9.5 } };
    expect(find(judgeTargets(report), "1,000,000 partitions")).toMatchObject({ measured: "×12.5 CPU, ×9.5 heap", verdict: "NOT met" });
    report.synthetic = { fixture: "f", sizes: [], growth: { cpu: 11.9, heap: 9.5 } };
    expect(find(judgeTargets(report), "1,000,000 partitions").verdict).toBe("met");
  });

  it("judges each figure against its target, at the size the issue names", () => {
    const report = createReport();
    // 10,010 partitions is no 100k figure: only the 100,012 row is judged.
    report.cycle = { sizes: [cycleAt(10_010, [100, 120, 110], 400), cycleAt(100_012, [2400, 2538, 2600], 2697)] };
    report.http = {
      benchPartitions: 10_000,
      load: [
        { name: "flow API", path: "/api/flows/x", connections: 50, seconds: 10, p50Ms: 12, p99Ms: 48, requestsPerSecond: 900, completed: 9000, non2xx: 0, errors: 0, timeouts: 0, responseKiB: 250, acceptEncoding: null },
        { name: "topic page", path: "/flows/x/topics/t", connections: 50, seconds: 10, p50Ms: 30, p99Ms: 51, requestsPerSecond: 500, completed: 5000, non2xx: 0, errors: 0, timeouts: 0, responseKiB: 80, acceptEncoding: "gzip" },
        {
          name: "flow page, uncompressed", path: "/flows/x", connections: 50, seconds: 10, p50Ms: 40, p99Ms: 90, requestsPerSecond: 1712.4,
          completed: 17124, non2xx: 0, errors: 0, timeouts: 0, responseKiB: 146.3, acceptEncoding: null,
        },
        {
          name: "topic pages, many topics", path: "/flows/x/topics/t0 (1 of 200)", connections: 50, seconds: 10, p50Ms: 400, p99Ms: 2100,
          requestsPerSecond: 96.4, completed: 964, non2xx: 0, errors: 0, timeouts: 0, responseKiB: 80, urls: 200, cacheOutcomes: { miss: 900, hit: 64 },
          acceptEncoding: "gzip",
        },
      ],
      pages: [
        { name: "overview", path: "/", serverFirstGetMs: 50, ttfbMs: 120, domContentLoadedMs: 300, loadMs: 400, documentKiB: 20 },
        { name: "flow page", path: "/flows/x", serverFirstGetMs: 50, ttfbMs: 201, domContentLoadedMs: 300, loadMs: 400, documentKiB: 20 },
      ],
      dashboardRssMiB: { beforeLoad: { self: 170, descendants: 30, total: 200 }, afterLoad: { self: 260, descendants: 40, total: 300 } },
    };
    const verdicts = judgeTargets(report);
    expect(find(verdicts, "whole pipeline CPU")).toMatchObject({ what: "whole pipeline CPU per cycle, median, 100,012 partitions", measured: "2538 ms", verdict: "NOT met" });
    // 2,697 MiB is 2,828 MB.
    expect(find(verdicts, "peak RSS")).toMatchObject({ measured: "2828 MB", verdict: "NOT met" });
    // 250 KiB is 256.0 KB: at the limit, met.
    expect(find(verdicts, "GET /api/flows/{flow} default response")).toMatchObject({ measured: "256.0 KB", verdict: "met" });
    expect(find(verdicts, "flow API p99")).toMatchObject({ measured: "48 ms", verdict: "met" });
    expect(find(verdicts, "topic page p99")).toMatchObject({ measured: "51 ms", verdict: "NOT met" });
    expect(find(verdicts, "flow page p99")).toMatchObject({ measured: "not measured", verdict: "not measured" });
    expect(find(verdicts, "flow page, uncompressed p99")).toMatchObject({ measured: "p99 90 ms, 1712 req/s, 146 KiB an answer", verdict: "reported" });
    expect(find(verdicts, "topic pages, many topics p99")).toMatchObject({ target: "≤ 100 ms", measured: "p99 2100 ms, 96 req/s over 200 URLs", verdict: "NOT met" });
    expect(find(verdicts, "page TTFB")).toMatchObject({ what: "page TTFB, slowest first load of 2 pages, 10,000 partitions", measured: "201 ms", verdict: "NOT met" });
  });

  it("counts every missed injection as a failed target", () => {
    const report = createReport();
    const summary = { medianApiMs: 900, medianBannerMs: 1200, medianCycleStartMs: 800, medianScenarioSeconds: 3 };
    report.detection = {
      rounds: 5,
      summary: [
        { scenario: "purge", injections: 5, detected: 5, missed: 0, notInjected: 0, ...summary },
        { scenario: "fail-task", injections: 5, detected: 4, missed: 1, notInjected: 0, ...summary },
      ],
      injections: [],
    };
    expect(find(judgeTargets(report), "faults not detected")).toMatchObject({ measured: "1 of 10", verdict: "NOT met" });
  });

  it("says how many faults were not injected beside the misses, never as detected", () => {
    const at = (scenario: ScenarioName, injected: boolean, cycleStartMs: number | null, missed: boolean): InjectionResult => ({
      ...failedInjection(scenario, `${scenario}-target`, injected ? null : "timed out after 180s waiting for latency-reset-0 to be replicated"),
      injected,
      missed,
      cycleStartMs,
      apiMs: cycleStartMs === null ? null : cycleStartMs + 500,
    });
    const injections = [
      at("topic-reset", false, null, false),
      at("topic-reset", true, 4000, false),
      at("topic-reset", true, 6000, false),
      at("purge", true, 3000, false),
      at("purge", true, null, true),
      at("purge", true, 2000, false),
    ];
    const summary = summarizeLatency(injections);
    // Not in the median: 4,000 / 6,000 (pickQuantile's lower middle); counted as a miss it would be 6,000.
    expect(summary.find((s) => s.scenario === "topic-reset")).toMatchObject({ injections: 3, detected: 2, missed: 0, notInjected: 1, medianCycleStartMs: 4000 });
    // The miss sorts last: the median of 2,000 / 3,000 / miss is 3,000.
    expect(summary.find((s) => s.scenario === "purge")).toMatchObject({ injections: 3, detected: 2, missed: 1, notInjected: 0, medianCycleStartMs: 3000 });
    const report = createReport();
    report.detection = { rounds: 3, summary, injections };
    expect(find(judgeTargets(report), "faults not detected")).toMatchObject({ measured: "1 of 5 (1 more not injected: setup failed)", verdict: "NOT met" });
    report.detection = { rounds: 1, summary: summarizeLatency(injections.slice(0, 1)), injections: injections.slice(0, 1) };
    expect(find(judgeTargets(report), "faults not detected")).toMatchObject({ measured: "none of 1 injected (setup failed)", verdict: "not measured" });
  });
});
