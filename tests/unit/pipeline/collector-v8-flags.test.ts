import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { collectorV8Args, collectorV8Flags, withCollectorNodeOptions } from "@/lib/pipeline/collector-v8-flags";

/** V8's heap limit in a Node started with `args` and NODE_OPTIONS `nodeOptions` (the semi-spaces' size is in it). */
function heapLimitOf(args: readonly string[], nodeOptions: string): number {
  const script = "process.stdout.write(String(require('node:v8').getHeapStatistics().heap_size_limit))";
  const result = spawnSync(process.execPath, [...args, "-e", script], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: "utf8",
  });
  return Number(result.stdout);
}

describe("the collector process's V8 flags", () => {
  it("are all passed when the operator's NODE_OPTIONS sets none of them", () => {
    expect(collectorV8Args(undefined)).toEqual(collectorV8Flags);
    expect(collectorV8Args("--enable-source-maps --max-old-space-size=3000")).toEqual(collectorV8Flags);
    expect(withCollectorNodeOptions(undefined)).toBe(collectorV8Flags.join(" "));
  });

  it("leave out a flag the operator's NODE_OPTIONS sets, spelt with dashes or underscores", () => {
    expect(collectorV8Args("--max-semi-space-size=8")).toEqual([]);
    expect(collectorV8Args("--enable-source-maps --max_semi_space_size=8")).toEqual([]);
    expect(withCollectorNodeOptions("--max-semi-space-size=8")).toBe("--max-semi-space-size=8");
  });

  it("put the operator's NODE_OPTIONS last, where Node lets them win", () => {
    expect(withCollectorNodeOptions("--enable-source-maps")).toBe(`${collectorV8Flags.join(" ")} --enable-source-maps`);
  });

  // What the functions above rely on, checked against this Node: a later flag wins within NODE_OPTIONS, and the
  // command line wins over NODE_OPTIONS (a larger semi-space raises V8's heap limit by three semi-spaces).
  it("change V8's heap as Node reads them, and yield to the operator's", () => {
    const plain = heapLimitOf([], "");
    const ours = heapLimitOf(collectorV8Args(undefined), "");
    expect(ours).toBeGreaterThan(plain);
    expect(heapLimitOf([], withCollectorNodeOptions(undefined))).toBe(ours);
    expect(heapLimitOf([], withCollectorNodeOptions("--max-semi-space-size=4"))).toBeLessThan(plain);
    expect(heapLimitOf(collectorV8Args("--max-semi-space-size=4"), "--max-semi-space-size=4")).toBeLessThan(plain);
  }, 60_000);
});
