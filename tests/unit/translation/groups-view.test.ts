import { describe, expect, it } from "vitest";
import { translateFlow } from "@/lib/translation";
import { failoverCsvPath, groupPagePath, listGroupSummaries, parseFailoverMode, renderFailoverCsv, requireGroup, shapeRereadSeries } from "@/lib/views/groups";
import { FLOW, makeCheckpoint, makeFlow, makeGroup, makeHistory, syncs, T0 } from "./fixtures";

const ft = translateFlow({
  flow: makeFlow({ checkpoints: [makeCheckpoint("app", "orders", 0, 120n, 101n)] }),
  sourceGroups: [makeGroup("app", { "orders/0": 150n, "orders/1": 7n }), makeGroup("idle", { "orders/1": 3n }), makeGroup("console-consumer-1", { "orders/0": 1n })],
  syncHistory: makeHistory({ 0: syncs([0, 0], [100, 100], [200, 200]) }),
  now: T0,
});

describe("lib/views/groups", () => {
  it("accepts only the two plan modes and says which ones exist", () => {
    expect(parseFailoverMode("mm2")).toBe("mm2");
    expect(parseFailoverMode("precise")).toBe("precise");
    expect(() => parseFailoverMode("latest")).toThrow('query parameter "mode" must be one of "mm2", "precise", got "latest"');
    expect(() => parseFailoverMode(null)).toThrow(/got nothing/);
  });

  it("404s an unknown group, naming the known ones and a filtered-out match", () => {
    expect(requireGroup(ft, "app").group).toBe("app");
    expect(() => requireGroup(ft, "nope")).toThrow(/no checkpointed consumer group "nope".*known: app, idle/);
    expect(() => requireGroup(ft, "console-consumer-1")).toThrow(/groups filter excludes it/);
  });

  it("serves the CSV body alone, explanations in ASCII headers", () => {
    const csv = renderFailoverCsv(ft, requireGroup(ft, "app"), "mm2");
    if (csv.kind !== "csv") throw new Error("expected a CSV");
    expect(csv.body).toBe("east.orders,0,101\n");
    expect(csv.filename).toBe("app-mm2-failover.csv");
    expect(csv.headers["x-gapwatch-plan-sources"]).toBe("checkpoint=1");
    expect(csv.headers["x-gapwatch-plan-omitted"]).toBe("orders/1: MM2 has written no offset sync for orders/1 yet");
    expect(csv.headers["x-gapwatch-reread-records"]).toBe("49");
    for (const value of Object.values(csv.headers)) expect(value).toMatch(/^[\x20-\x7e]*$/);
  });

  it("refuses to offer an empty plan (kafka-consumer-groups cannot parse an empty file)", () => {
    expect(renderFailoverCsv(ft, requireGroup(ft, "idle"), "precise")).toEqual({ kind: "empty", message: expect.stringMatching(/no partition with a target offset in mode "precise"; orders\/1: /) });
  });

  it("lists groups with totals and untranslatable partitions, and builds URL-safe paths", () => {
    const summary = listGroupSummaries(ft);
    expect(summary.groups.map((g) => [g.group, g.untranslatable.map((u) => u.reason)])).toEqual([
      ["app", ["no-sync"]],
      ["idle", ["no-sync"]],
    ]);
    expect(summary.excludedGroups).toEqual(["console-consumer-1"]);
    expect(groupPagePath(FLOW, "a/b c")).toBe("/flows/east-%3Ewest/groups/a%2Fb%20c");
    expect(failoverCsvPath(FLOW, "app", "precise")).toBe("/api/flows/east-%3Ewest/groups/app/failover.csv?mode=precise");
  });

  it("shapes stored samples into a group total and one series per partition", () => {
    const base = { group: "app", topic: "orders", committed: 1n, translated: 1n, checkpointDownstream: null, idealLow: 1n, idealHigh: 1n };
    const series = shapeRereadSeries([
      { ...base, partition: 0, at: T0, reread: 5n, failoverReread: 7n, groupLag: 10n },
      { ...base, partition: 1, at: T0, reread: -3n, failoverReread: null, groupLag: 4n },
      { ...base, partition: 0, at: T0 + 5000, reread: 1n, failoverReread: 1n, groupLag: 2n },
    ]);
    expect(series.map((s) => s.key)).toEqual(["total", "orders/0", "orders/1"]);
    expect(series[0]!.points).toEqual([
      { at: T0, reread: 5, failoverReread: 7, lag: 14 },
      { at: T0 + 5000, reread: 1, failoverReread: 1, lag: 2 },
    ]);
    expect(series[2]!.points).toEqual([{ at: T0, reread: -3, failoverReread: null, lag: 4 }]);
  });
});
