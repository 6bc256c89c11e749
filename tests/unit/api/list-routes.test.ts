import { beforeAll, describe, expect, it, vi } from "vitest";
import type { AlertRecord, RiskRecord } from "@/lib/alerts/types";
import type { FlowPartition, Snapshot } from "@/lib/collector/types";
import { ProgressWindow } from "@/lib/pipeline/progress-window";
import type { PartitionSample } from "@/lib/store";
import { makeCluster, makeConnect, makeConnector, makeFlow, makeFlowPartition, makeSnapshot, makeTopic, T0 } from "../detect/fixtures";

/** What the routes read through getServingRuntime(): the latest cycle's read model, the alerts, the store. */
const runtime = vi.hoisted(() => ({
  snapshot: null as Snapshot | null,
  alerts: [] as AlertRecord[],
  risks: [] as RiskRecord[],
  history: [] as PartitionSample[],
}));

vi.mock("@/lib/pipeline/runtime", () => ({
  getServingRuntime: () => ({
    models: {
      latest: () =>
        runtime.snapshot === null
          ? null
          : {
              snapshot: runtime.snapshot,
              translations: new Map(),
              translationErrors: new Map(),
              // The pipeline's first cycle: no reference sample yet, so time to catch up is unknown.
              progress: new ProgressWindow(300_000).record(runtime.snapshot),
              audit: new Map(),
            },
    },
    alerts: { list: () => runtime.alerts, risks: () => runtime.risks },
    store: { readPartitionHistory: () => runtime.history },
  }),
}));

const { GET: getFlow } = await import("@/app/api/flows/[flow]/route");
const { GET: getFlowTopics } = await import("@/app/api/flows/[flow]/topics/route");
const { GET: getAlerts } = await import("@/app/api/alerts/route");
const { GET: getRisks } = await import("@/app/api/risks/route");
const { GET: getClusters } = await import("@/app/api/clusters/route");
const { GET: getClusterTopics } = await import("@/app/api/clusters/[cluster]/topics/route");
const { GET: getConnect } = await import("@/app/api/connect/route");
const { GET: getHistory } = await import("@/app/api/flows/[flow]/partitions/[topic]/[partition]/history/route");

const flowParam = encodeURIComponent("east->west");
type Json = Record<string, unknown> & { page: { limit: number; sort: string; nextCursor: string | null; total: number; matched: number } };

async function call<P extends Record<string, string>>(handler: (r: Request, c: { params: Promise<P> }) => Promise<Response> | Response, path: string, params: P) {
  const response = await handler(new Request(`http://localhost${path}`), { params: Promise.resolve(params) });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) as Json };
}

/**
 * 10,000 partitions as the bench creates them (200 topics `bench-50-NNNN` × 50 partitions): every 10th lags
 * (i × 31 mod 5,000 records, oldest record i mod 600 s old), every 2,000th (i = 1, 2001, …) unknown.
 */
function makeBenchPartitions(): FlowPartition[] {
  return Array.from({ length: 10_000 }, (_, i) => {
    const topic = `bench-50-${String(Math.floor(i / 50)).padStart(4, "0")}`;
    const end = BigInt(1_000_000 + i * 7);
    const unknown = i % 2000 === 1;
    const lag = unknown ? null : i % 10 === 0 ? BigInt((i * 31) % 5000) : 0n;
    return makeFlowPartition({
      topic,
      partition: i % 50,
      targetTopic: `east.${topic}`,
      sourceConnector: "mm2-east-west-source",
      sourceTopicId: "Qm9vLXRvcGljLWlkLTAwMQ",
      sourceLogEnd: end,
      mm2Position: lag === null ? null : end - lag,
      committedPosition: lag === null ? null : end - lag - 1n,
      positionSource: lag === null ? null : "offset-sync",
      targetLogEnd: lag === null ? null : end - lag,
      lag,
      offsetLag: lag,
      lagBasis: "records",
      latestSync: { upstream: end - 140n, downstream: end - 140n },
      oldestUnreplicatedTimestamp: lag !== null && lag > 0n ? T0 - (i % 600) * 1000 : null,
      unknown: unknown ? { reason: "ListOffsets at east failed: broker 2: Request timed out", dataAt: T0 - 30_000 } : null,
    });
  });
}

describe("GET /api/flows/{flow} at 10,000 partitions", () => {
  beforeAll(() => {
    runtime.snapshot = makeSnapshot({ flows: [makeFlow({ partitions: makeBenchPartitions() })] });
  });

  it("answers a default page under 256 KB: 100 partitions (unknown lag first, then the largest), 50 topics", async () => {
    const { status, bytes, body } = await call(getFlow, `/api/flows/${flowParam}`, { flow: flowParam });
    expect(status).toBe(200);
    // 66,066 bytes measured: 100 partition rows ≈ 539 bytes each, 50 topic rows ≈ 220.
    expect(bytes).toBeLessThanOrEqual(256 * 1024);
    const partitions = body.partitions as { topic: string; partition: number; lag: string | null; lagSeconds: number | null }[];
    expect(partitions).toHaveLength(100);
    expect(body.page).toMatchObject({ limit: 100, sort: "lag", total: 10_000, matched: 10_000 });
    // Unknown: i = 1, 2001, 4001, 6001, 8001; then lag 4,990 at i = 1290 and 6290 (31 × i ≡ 4990 mod 5000).
    expect(partitions.slice(0, 7).map((p) => [`${p.topic}/${p.partition}`, p.lag, p.lagSeconds])).toEqual([
      ["bench-50-0000/1", null, null],
      ["bench-50-0040/1", null, null],
      ["bench-50-0080/1", null, null],
      ["bench-50-0120/1", null, null],
      ["bench-50-0160/1", null, null],
      ["bench-50-0025/40", "4990", 90],
      ["bench-50-0125/40", "4990", 290],
    ]);
    expect((body.topics as unknown[]).length).toBe(50);
    expect(body.topicsPage).toMatchObject({ limit: 50, sort: "lag", total: 200, matched: 200 });
    expect((body.flow as { partitions: number }).partitions).toBe(10_000);
  });

  it("gives every partition exactly once when a client follows nextCursor", async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `limit=4000&sort=topic${cursor === null ? "" : `&cursor=${cursor}`}`;
      const { body } = await call(getFlow, `/api/flows/${flowParam}?${query}`, { flow: flowParam });
      for (const p of body.partitions as { topic: string; partition: number }[]) seen.add(`${p.topic}/${p.partition}`);
      cursor = body.page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect([pages, seen.size]).toEqual([3, 10_000]);
  });

  it("finds one partition by topic/partition and lists the matching topic", async () => {
    const { body } = await call(getFlow, `/api/flows/${flowParam}?q=bench-50-0125/40`, { flow: flowParam });
    expect((body.partitions as { topic: string; partition: number }[]).map((p) => `${p.topic}/${p.partition}`)).toEqual(["bench-50-0125/40"]);
    expect(body.page).toEqual({ limit: 100, sort: "lag", nextCursor: null, total: 10_000, matched: 1 });
    expect((body.topics as { topic: string }[]).map((t) => t.topic)).toEqual(["bench-50-0125"]);
  });

  it("answers 400 naming the parameter and its allowed values", async () => {
    const bad = await call(getFlow, `/api/flows/${flowParam}?sort=size`, { flow: flowParam });
    expect([bad.status, bad.body]).toEqual([400, { error: 'query parameter "sort" must be one of "lag", "lagSeconds", "topic", got "size"', code: "GW_BAD_REQUEST" }]);
    const limit = await call(getFlow, `/api/flows/${flowParam}?limit=5001`, { flow: flowParam });
    expect([limit.status, limit.body.error]).toEqual([400, 'query parameter "limit" must be an integer from 1 to 5000 (default 100), got "5001"']);
    const q = await call(getFlow, `/api/flows/${flowParam}?q=a%20b`, { flow: flowParam });
    expect([q.status, q.body.error]).toEqual([400, 'query parameter "q" must be part of a topic name ([A-Za-z0-9._-], up to 249 characters), optionally followed by /<partition> (e.g. orders/3), got "a b"']);
  });

  it("pages the flow's topics on their own route, largest summed lag first", async () => {
    const first = await call(getFlowTopics, `/api/flows/${flowParam}/topics?limit=2`, { flow: flowParam });
    // Σ over a topic's 5 lagging partitions of 31 × i mod 5,000: topics 25 and 125 (i = 1250…1290, 6250…6290) lead.
    expect((first.body.topics as { topic: string; lag: string }[]).map((t) => [t.topic, t.lag])).toEqual([
      ["bench-50-0025", "21850"],
      ["bench-50-0125", "21850"],
    ]);
    expect(first.body.page).toMatchObject({ limit: 2, total: 200, matched: 200 });
    const next = await call(getFlowTopics, `/api/flows/${flowParam}/topics?limit=1&cursor=${first.body.page.nextCursor}`, { flow: flowParam });
    expect((next.body.topics as { topic: string; lag: string }[]).map((t) => [t.topic, t.lag])).toEqual([["bench-50-0054", "21600"]]);
  });
});

describe("the other list routes", () => {
  const alert = (id: string, lastSeen: number, topic: string | null, partition: number | null): AlertRecord => ({
    id,
    key: `DATA_LOSS|east->west|${topic}|${partition}`,
    type: "DATA_LOSS",
    severity: "critical",
    state: "firing",
    acknowledged: null,
    flow: "east->west",
    cluster: "east",
    topic,
    partition,
    group: null,
    summary: "lost",
    evidence: {},
    firstSeen: T0,
    lastSeen,
    resolvedAt: null,
  });

  it("GET /api/alerts pages newest first, the id breaking ties, and searches topic/partition", async () => {
    runtime.alerts = [alert("00000000000000b2", T0 + 20, "orders", 2), alert("00000000000000a1", T0 + 20, "orders", 1), alert("00000000000000c3", T0 + 30, "payments", 0), alert("00000000000000d4", T0 + 10, null, null)];
    const first = await call(getAlerts, "/api/alerts?limit=2", {});
    expect((first.body.alerts as AlertRecord[]).map((a) => a.id)).toEqual(["00000000000000c3", "00000000000000a1"]);
    expect(first.body.page).toMatchObject({ limit: 2, sort: "lastSeen", total: 4, matched: 4 });
    const second = await call(getAlerts, `/api/alerts?limit=2&cursor=${first.body.page.nextCursor}`, {});
    expect((second.body.alerts as AlertRecord[]).map((a) => a.id)).toEqual(["00000000000000b2", "00000000000000d4"]);
    expect(second.body.page.nextCursor).toBeNull();
    const search = await call(getAlerts, "/api/alerts?q=orders/2", {});
    expect((search.body.alerts as AlertRecord[]).map((a) => a.id)).toEqual(["00000000000000b2"]);
    const wrongSort = await call(getAlerts, `/api/alerts?sort=firstSeen&cursor=${first.body.page.nextCursor}`, {});
    expect([wrongSort.status, wrongSort.body.error]).toEqual([400, 'query parameter "cursor" belongs to sort "lastSeen", not "firstSeen": repeat the sort of the request that returned it']);
  });

  it("GET /api/risks pages the ordered risks and counts every risk", async () => {
    const risk = (cluster: string, group: string): RiskRecord => ({
      key: `COMMIT_WITHOUT_LEADER_EPOCH|${cluster}|${group}`,
      type: "COMMIT_WITHOUT_LEADER_EPOCH",
      severity: "info",
      flow: null,
      cluster,
      topic: null,
      partition: null,
      group,
      summary: "",
      evidence: {},
      firstSeen: T0,
      lastSeen: T0,
    });
    runtime.risks = [risk("west", "billing"), risk("east", "billing"), risk("east", "audit")];
    const { body } = await call(getRisks, "/api/risks?limit=2", {});
    expect((body.risks as RiskRecord[]).map((r) => r.key)).toEqual(["COMMIT_WITHOUT_LEADER_EPOCH|east|audit", "COMMIT_WITHOUT_LEADER_EPOCH|east|billing"]);
    expect(body.byCluster).toEqual([
      { cluster: "east", risks: 2 },
      { cluster: "west", risks: 1 },
    ]);
    const next = await call(getRisks, `/api/risks?limit=2&cursor=${body.page.nextCursor}`, {});
    expect((next.body.risks as RiskRecord[]).map((r) => r.key)).toEqual(["COMMIT_WITHOUT_LEADER_EPOCH|west|billing"]);
  });

  it("GET /api/clusters gives each cluster its first topics; /api/clusters/{cluster}/topics pages them", async () => {
    const topics = ["orders", "clicks", "payments", "audit"].map((name, i) => makeTopic(name, Array.from({ length: i + 1 }, (_, p) => ({ partition: p }))));
    runtime.snapshot = makeSnapshot({ clusters: [makeCluster("east", { topics }), makeCluster("west")] });
    const { body } = await call(getClusters, "/api/clusters?limit=2", {});
    const east = (body.clusters as { alias: string; topics: { name: string }[]; topicsPage: Json["page"] }[])[0]!;
    expect(east.topics.map((t) => t.name)).toEqual(["audit", "clicks"]);
    expect(east.topicsPage).toMatchObject({ limit: 2, sort: "topic", total: 4, matched: 4 });
    const next = await call(getClusterTopics, `/api/clusters/east/topics?limit=2&cursor=${east.topicsPage.nextCursor}`, { cluster: "east" });
    expect((next.body.topics as { name: string }[]).map((t) => t.name)).toEqual(["orders", "payments"]);
    const bySize = await call(getClusterTopics, "/api/clusters/east/topics?sort=partitions&limit=1", { cluster: "east" });
    expect((bySize.body.topics as { name: string; partitions: number }[]).map((t) => [t.name, t.partitions])).toEqual([["audit", 4]]);
    const unknown = await call(getClusterTopics, "/api/clusters/north/topics", { cluster: "north" });
    expect([unknown.status, unknown.body.error]).toEqual([404, 'no cluster "north"; known clusters: east, west']);
    const cursorOnAll = await call(getClusters, `/api/clusters?cursor=${east.topicsPage.nextCursor}`, {});
    expect(cursorOnAll.status).toBe(400);
  });

  it("GET /api/connect pages connectors across Connect clusters, configs redacted", async () => {
    const connector = (name: string) => makeConnector({ name, config: { "connector.class": "MirrorSourceConnector", "sasl.jaas.config": "secret-stuff" } });
    runtime.snapshot = makeSnapshot({ connect: [makeConnect([connector("b-source"), connector("a-source")], { name: "connect-1" }), makeConnect([connector("c-checkpoint")], { name: "connect-2" })] });
    const { body } = await call(getConnect, "/api/connect?limit=2", {});
    const clusters = body.connect as { name: string; connectors: { name: string; config: Record<string, string> }[] }[];
    expect(clusters.map((c) => [c.name, c.connectors.map((k) => k.name)])).toEqual([
      ["connect-1", ["a-source", "b-source"]],
      ["connect-2", []],
    ]);
    expect(clusters[0]!.connectors[0]!.config["sasl.jaas.config"]).toBe("[redacted]");
    const next = await call(getConnect, `/api/connect?limit=2&cursor=${body.page.nextCursor}`, {});
    expect((next.body.connect as { connectors: { name: string }[] }[]).map((c) => c.connectors.map((k) => k.name))).toEqual([[], ["c-checkpoint"]]);
  });

  it("GET …/history pages a partition's samples oldest first", async () => {
    runtime.history = [0, 1, 2].map((i) => ({ at: T0 + i * 10_000, sourceLogStart: 0n, sourceLogEnd: BigInt(100 + i), mm2Position: BigInt(100 + i), targetLogEnd: BigInt(100 + i), lag: 0n }));
    const path = `/api/flows/${flowParam}/partitions/orders/2/history?from=${T0}&to=${T0 + 60_000}&limit=2`;
    const params = { flow: flowParam, topic: "orders", partition: "2" };
    const first = await call(getHistory, path, params);
    expect((first.body.samples as { at: number }[]).map((s) => s.at)).toEqual([T0, T0 + 10_000]);
    expect(first.body.page).toMatchObject({ limit: 2, sort: "at", total: 3, matched: 3 });
    const next = await call(getHistory, `${path}&cursor=${first.body.page.nextCursor}`, params);
    expect((next.body.samples as { at: number; sourceLogEnd: string }[]).map((s) => [s.at, s.sourceLogEnd])).toEqual([[T0 + 20_000, "102"]]);
  });

  it("GET …/history answers 404 naming what exists for an unknown flow, topic or partition with no samples", async () => {
    const partitions = [0, 1, 2, 5].map((partition) => makeFlowPartition({ partition }));
    runtime.snapshot = makeSnapshot({ flows: [makeFlow({ partitions })] });
    runtime.history = [];
    const get = (flow: string, topic: string, partition: string) =>
      call(getHistory, `/api/flows/${encodeURIComponent(flow)}/partitions/${topic}/${partition}/history`, { flow: encodeURIComponent(flow), topic, partition });
    const noFlow = await get("north->west", "orders", "2");
    expect([noFlow.status, noFlow.body.error]).toEqual([404, 'no MM2 flow "north->west"; known flows: east->west']);
    const noTopic = await get("east->west", "ledger", "0");
    expect([noTopic.status, noTopic.body.error]).toEqual([404, 'flow east->west replicates no topic "ledger" (use the source topic\'s name); its topics: orders']);
    const noPartition = await get("east->west", "orders", "3");
    expect([noPartition.status, noPartition.body.error]).toEqual([404, 'topic orders of flow east->west has no replicated partition "3"; it has partitions 0–2, 5']);
    // A bad partition number stays a 400 that says what to fix.
    const bad = await get("east->west", "orders", "x");
    expect([bad.status, bad.body.error]).toEqual([400, 'partition must be a non-negative integer, got "x"']);
    // A known partition without samples yet is an empty page; a deleted topic's stored samples are still served.
    expect((await get("east->west", "orders", "5")).status).toBe(200);
    runtime.history = [{ at: T0, sourceLogStart: 0n, sourceLogEnd: 7n, mm2Position: 7n, targetLogEnd: 7n, lag: 0n }];
    const deleted = await get("east->west", "ledger", "0");
    expect([deleted.status, (deleted.body.samples as unknown[]).length]).toEqual([200, 1]);
  });
});
