import { describe, expect, it, vi } from "vitest";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { makeCollectorModel } from "../pipeline/shard-models";

/** The model the mocked runtime serves (a web instance's, or a collector's own). */
const served = vi.hoisted(() => ({ model: null as ReadModel | null }));

vi.mock("@/lib/config", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/config")>();
  const config = actual.parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});
  return { ...actual, getConfig: () => config };
});

vi.mock("@/lib/pipeline/runtime", () => ({
  getServingRuntime: () => ({ role: "web", models: { latest: () => served.model }, alerts: { list: () => [], risks: () => [] } }),
}));

const { renderServedMetrics } = await import("@/lib/views/served-metrics");

/** The flow's readiness gauge that reads 1, and its failover_ready gauge, from /api/metrics's text. */
async function readVerdict(flow: string): Promise<[string | undefined, string | undefined]> {
  const text = await renderServedMetrics();
  const escaped = flow.replace(/[>-]/g, (c) => `\\${c}`);
  const verdict = new RegExp(`^gapwatch_flow_readiness\\{flow="${escaped}",verdict="([a-z-]+)"\\} 1$`, "m").exec(text)?.[1];
  const ready = new RegExp(`^gapwatch_flow_failover_ready\\{flow="${escaped}"\\} ([01])$`, "m").exec(text)?.[1];
  return [verdict, ready];
}

describe("GET /api/metrics's failover readiness", () => {
  it("is the verdict as judged while the data is fresh, and unknown once it is older than 3 poll intervals", async () => {
    const flow = "east->west";
    // The default poll interval is 10 s: fresh for 30 s after the cycle's model was built.
    served.model = makeCollectorModel({ flows: [flow], held: [0], takenAt: Date.now() - 1_000 });
    const [fresh] = await readVerdict(flow);
    expect(["ready", "degraded", "not-ready"]).toContain(fresh);
    served.model = makeCollectorModel({ flows: [flow], held: [0], takenAt: Date.now() - 60_000 });
    expect(await readVerdict(flow)).toEqual(["unknown", "0"]);
  });
});
