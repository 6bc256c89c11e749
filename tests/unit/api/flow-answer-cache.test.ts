import { describe, expect, it, vi } from "vitest";
import type { FlowPartition, Snapshot } from "@/lib/collector/types";
import { maxAnswersPerModel } from "@/lib/api/model-answers";
import { ProgressWindow } from "@/lib/pipeline/progress-window";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { makeFlow, makeFlowPartition, makeSnapshot } from "../detect/fixtures";

/** The model the route serves: one object per cycle, as PublishedReadModels holds it. */
const runtime = vi.hoisted(() => ({ model: null as unknown }));

vi.mock("@/lib/pipeline/runtime", () => ({
  getServingRuntime: () => ({ models: { latest: () => runtime.model } }),
}));

const { GET: getFlow } = await import("@/app/api/flows/[flow]/route");

const flowParam = encodeURIComponent("east->west");

async function ask(model: ReadModel, query: string): Promise<string> {
  runtime.model = model;
  const response = await getFlow(new Request(`http://localhost/api/flows/${flowParam}${query}`), { params: Promise.resolve({ flow: flowParam }) });
  expect(response.status).toBe(200);
  return response.text();
}

/** 10,000 partitions (200 topics × 50); every 10th lags by (i × 31 mod 5,000) plus `extraLag`; the log grows 7 a cycle. */
function makePartitions(cycle: number, extraLag = 0n): FlowPartition[] {
  return Array.from({ length: 10_000 }, (_, i) => {
    const topic = `bench-50-${String(Math.floor(i / 50)).padStart(4, "0")}`;
    const end = BigInt(1_000_000 + i * 7 + cycle * 7);
    const lag = i % 10 === 0 ? BigInt((i * 31) % 5000) + extraLag : 0n;
    return makeFlowPartition({ topic, partition: i % 50, targetTopic: `east.${topic}`, sourceLogEnd: end, mm2Position: end - lag, targetLogEnd: end - lag, lag, offsetLag: lag });
  });
}

function makeSnapshotOf(cycle: number, extraLag = 0n): Snapshot {
  return makeSnapshot({ cycle, flows: [makeFlow({ partitions: makePartitions(cycle, extraLag) })] });
}

/** A model of cycle 2, its catch-up compared with cycle 1 (10 s before): every figure the route computes is there. */
function makeModel(extraLag = 0n): ReadModel {
  const window = new ProgressWindow(300_000);
  window.record(makeSnapshotOf(1));
  const snapshot = makeSnapshotOf(2, extraLag);
  const progress = window.record(snapshot);
  return { snapshot, progress, translations: new Map(), translationErrors: new Map(), audit: new Map(), alerts: [], risks: [], history: { offsetSyncs: new Map() }, builtAt: snapshot.takenAt };
}

const queries = ["", "?sort=topic&limit=7", "?q=bench-50-0003", "?q=bench-50-0100/10", "?sort=lagSeconds&limit=3", "?limit=5&sort=topic"];

describe("GET /api/flows/{flow}: answers kept per read model", () => {
  it("answers every query with the bytes a fresh computation gives, again and again", async () => {
    const model = makeModel();
    // Another model object of the same cycle and a snapshot copy: nothing of the first one's memos applies to it.
    const fresh = { ...makeModel(), snapshot: { ...model.snapshot } };
    for (const query of queries) {
      const first = await ask(model, query);
      expect(await ask(model, query)).toBe(first);
      expect(await ask(fresh, query)).toBe(first);
    }
    // Following a cursor: the second page is kept too, and is the fresh one.
    const next = (JSON.parse(await ask(model, "?limit=5&sort=topic")) as { page: { nextCursor: string } }).page.nextCursor;
    const second = await ask(model, `?limit=5&sort=topic&cursor=${next}`);
    expect(await ask(fresh, `?limit=5&sort=topic&cursor=${next}`)).toBe(second);
    expect((JSON.parse(second) as { partitions: { topic: string; partition: number }[] }).partitions.map((p) => `${p.topic}/${p.partition}`)).toEqual([
      "bench-50-0000/5",
      "bench-50-0000/6",
      "bench-50-0000/7",
      "bench-50-0000/8",
      "bench-50-0000/9",
    ]);
  });

  it("gives the page's partitions' catch-up in the flow's order, with their rates", async () => {
    const body = JSON.parse(await ask(makeModel(), "?sort=lag&limit=3")) as {
      partitions: { topic: string; partition: number; lag: string }[];
      catchUp: { state: string; lag: string; partitions: { topic: string; partition: number; state: string; produceRate: number; replicationRate: number }[] };
    };
    // Largest lags: i = 1290 and 6290 (31 × i ≡ 4990 mod 5000), then 4980 at i = 2580 and 7580 (topic order breaks the tie).
    expect(body.partitions.map((p) => [`${p.topic}/${p.partition}`, p.lag])).toEqual([
      ["bench-50-0025/40", "4990"],
      ["bench-50-0125/40", "4990"],
      ["bench-50-0051/30", "4980"],
    ]);
    // In the flow's order (i = 1290, 2580, 6290), each copied and grown by 7 offsets in 10 s.
    expect(body.catchUp.partitions.map((p) => [`${p.topic}/${p.partition}`, p.state, p.replicationRate, p.produceRate])).toEqual([
      ["bench-50-0025/40", "not-catching-up", 0.7, 0.7],
      ["bench-50-0051/30", "not-catching-up", 0.7, 0.7],
      ["bench-50-0125/40", "not-catching-up", 0.7, 0.7],
    ]);
    // The flow's own figures cover all 10,000 partitions: 1,000 lagging ones, 2,495,000 offsets behind.
    expect([body.catchUp.state, body.catchUp.lag]).toEqual(["not-catching-up", "2495000"]);
  });

  it("answers from a new model's data once the next cycle's model is served", async () => {
    const before = JSON.parse(await ask(makeModel(), "?sort=topic&limit=1")) as { partitions: { lag: string }[]; flow: { lag: string } };
    const after = JSON.parse(await ask(makeModel(100n), "?sort=topic&limit=1")) as { partitions: { lag: string }[]; flow: { lag: string } };
    expect([before.partitions[0]!.lag, before.flow.lag]).toEqual(["0", "2495000"]);
    // 100 more on each of the 1,000 lagging partitions.
    expect([after.partitions[0]!.lag, after.flow.lag]).toEqual(["100", "2595000"]);
  });

  it("keeps the last 64 queries of a model: an older one is computed again", async () => {
    const model = makeModel();
    const takenAt = model.snapshot.takenAt;
    const query = "?sort=topic&limit=2";
    expect(JSON.parse(await ask(model, query))).toMatchObject({ takenAt });
    // Only a test changes a served model: the kept answer still says what the model said when it was computed.
    (model.snapshot as { takenAt: number }).takenAt = takenAt + 1;
    expect(JSON.parse(await ask(model, query))).toMatchObject({ takenAt });
    for (let limit = 1; limit <= maxAnswersPerModel; limit++) await ask(model, `?sort=lag&limit=${limit}`);
    expect(JSON.parse(await ask(model, query))).toMatchObject({ takenAt: takenAt + 1 });
  });
});
