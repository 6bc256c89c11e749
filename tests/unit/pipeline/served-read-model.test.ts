import { mkdtempSync, rmSync } from "node:fs";
import { readSyncHistories } from "@/lib/collector/sync-history";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAlertService } from "@/lib/alerts/alert-service";
import { type ConsumerGroupState, flowPartitionKey } from "@/lib/collector/types";
import { getConfig } from "@/lib/config";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { mergeReadModels } from "@/lib/pipeline/merge-read-models";
import { decodeReadModel, encodeReadModel } from "@/lib/pipeline/published-read-models";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { createSqliteStore, type Store } from "@/lib/store";
import { shapeOffsetSyncs } from "@/lib/views/partition";
import { FLOW, makeCluster, makeConnect, makeConnector, makeFlowPartition, makeHistory, makeSnapshot, makeTopic, T0 } from "../detect/fixtures";

/** The model the mocked runtime serves: the pipeline's own, or the one decoded from what it published. */
const served = vi.hoisted(() => ({ model: null as ReadModel | null }));

vi.mock("@/lib/config", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/config")>();
  const config = actual.parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});
  return { ...actual, getConfig: () => config };
});

vi.mock("@/lib/pipeline/runtime", () => ({
  getServingRuntime: () => ({
    role: "web",
    models: { latest: () => served.model },
    alerts: { list: () => served.model?.alerts ?? [], risks: () => served.model?.risks ?? [] },
  }),
}));

const { GET: getFlows } = await import("@/app/api/flows/route");
const { GET: getFlow } = await import("@/app/api/flows/[flow]/route");
const { GET: getFlowTopics } = await import("@/app/api/flows/[flow]/topics/route");
const { GET: getCoverage } = await import("@/app/api/flows/[flow]/coverage/route");
const { GET: getGroups } = await import("@/app/api/flows/[flow]/groups/route");
const { GET: getGroup } = await import("@/app/api/flows/[flow]/groups/[group]/route");
const { GET: getFailoverCsv } = await import("@/app/api/flows/[flow]/groups/[group]/failover.csv/route");
const { GET: getReadiness } = await import("@/app/api/flows/[flow]/readiness/route");
const { GET: getAudit } = await import("@/app/api/flows/[flow]/audit/route");
const { GET: getClusters } = await import("@/app/api/clusters/route");
const { GET: getClusterTopics } = await import("@/app/api/clusters/[cluster]/topics/route");
const { GET: getConnect } = await import("@/app/api/connect/route");
const { GET: getHealth } = await import("@/app/api/health/route");

type Handler<P> = (r: Request, c: { params: Promise<P> }) => Promise<Response> | Response;
const flow = encodeURIComponent(FLOW);
/** Every route that reads the read model, with a request each. */
const requests: [Handler<never>, string, Record<string, string>][] = [
  [getFlows, "/api/flows", {}],
  [getFlow, `/api/flows/${flow}`, { flow }],
  [getFlowTopics, `/api/flows/${flow}/topics`, { flow }],
  [getCoverage, `/api/flows/${flow}/coverage`, { flow }],
  [getGroups, `/api/flows/${flow}/groups`, { flow }],
  [getGroup, `/api/flows/${flow}/groups/app`, { flow, group: "app" }],
  [getFailoverCsv, `/api/flows/${flow}/groups/app/failover.csv?mode=mm2`, { flow, group: "app" }],
  [getFailoverCsv, `/api/flows/${flow}/groups/app/failover.csv?mode=precise`, { flow, group: "app" }],
  [getReadiness, `/api/flows/${flow}/readiness`, { flow }],
  [getAudit, `/api/flows/${flow}/audit`, { flow }],
  [getClusters, "/api/clusters", {}],
  [getClusterTopics, "/api/clusters/east/topics", { cluster: "east" }],
  [getConnect, "/api/connect", {}],
  [getHealth, "/api/health", {}],
];

async function answer(model: ReadModel, [handler, url, params]: (typeof requests)[number]): Promise<string> {
  served.model = model;
  const response = await handler(new Request(`http://localhost${url}`), { params: Promise.resolve(params as never) });
  // The health route measures data age at Date.now(): the clock is fixed below.
  return `${response.status} ${[...response.headers].join(";")}\n${await response.text()}`;
}

/** `app` commits on orders/2 (translated through the syncs); `shares` is a share group with its start offsets. */
const groups: ConsumerGroupState[] = [
  { groupId: "app", state: "Stable", protocolType: "consumer", groupType: "classic", members: 1, offsets: [{ topic: "orders", partition: 2, offset: 1495n, committedLeaderEpoch: -1 }], error: null, dataAt: T0 },
  {
    groupId: "shares", state: "Stable", protocolType: "share", groupType: "share", members: 1, offsets: [],
    shareOffsets: [{ topic: "orders", partition: 2, startOffset: 1400n, leaderEpoch: 0, lag: 600n }], error: null, dataAt: T0,
  },
];
/** 100 offset syncs on orders/2, every 15 source offsets (one every offset.lag.max records), oldest first. */
const syncs: [number, number][] = Array.from({ length: 100 }, (_, i) => [i * 15, 4000 + i * 15]);
const syncKey = flowPartitionKey(FLOW, "orders", 2);
/** MM2's source connector with a credential in its config, as Connect's REST API returns it. */
const jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="mm2" password="s3cret-in-config";';
const connect = [makeConnect([makeConnector({ config: { "tasks.max": "1", "source.cluster.sasl.jaas.config": jaas } })])];

let dir = "";
let store: Store | null = null;
let full: ReadModel;
let published: ReadModel;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"], now: T0 + 20_000 });
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-served-"));
  store = createSqliteStore(path.join(dir, "gapwatch.db"));
  const pipeline = new CyclePipeline(getConfig(), store, createAlertService(store, getConfig()));
  const partitions = [makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 2000n, mm2Position: 1500n, targetLogEnd: 5500n, latestSync: { upstream: 1485n, downstream: 5485n } })];
  const east = { ...makeCluster("east"), topics: [makeTopic("orders", [{ partition: 2 }], { topicId: "id-1" })], groups };
  const first = makeSnapshot({ cycle: 1, partitions, east, connect });
  await pipeline.processCycle(first, null, makeHistory(syncs));
  full = await pipeline.processCycle(makeSnapshot({ cycle: 2, partitions, east, connect }), first, makeHistory(syncs));
  published = await decodeReadModel(encodeReadModel(full));
});

afterAll(async () => {
  vi.useRealTimers();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the published read model: what is served, trimmed", () => {
  it("keeps a partition's newest 64 offset syncs with the count held, and no group offsets on the clusters", () => {
    expect(full.history.offsetSyncs.get(syncKey)).toHaveLength(100);
    expect(published.history.offsetSyncs.get(syncKey)).toEqual(readSyncHistories(full.history.offsetSyncs).list(syncKey).slice(36));
    expect([...published.offsetSyncsHeld!]).toEqual([[syncKey, 100]]);
    const east = published.snapshot.clusters.find((c) => c.alias === "east")!;
    expect(east.groups.map((g) => [g.groupId, g.offsets, g.shareOffsets])).toEqual([["app", [], undefined], ["shares", [], undefined]]);
    // What the pipeline keeps in memory is left as it was.
    expect(full.snapshot.clusters[0]!.groups[0]!.offsets).toHaveLength(1);
    expect(full.translations.get(FLOW)!.groups.map((g) => [g.group, g.partitions[0]!.committed])).toEqual([["app", 1495n]]);
    expect(published.translations).toEqual(full.translations);
  });

  it("publishes connector configs redacted as pages show them: no credential reaches the shared store", () => {
    expect(full.snapshot.connect[0]!.connectors[0]!.config).toEqual({ "tasks.max": "1", "source.cluster.sasl.jaas.config": jaas });
    expect(published.snapshot.connect[0]!.connectors[0]!.config).toEqual({ "tasks.max": "1", "source.cluster.sasl.jaas.config": "[redacted]" });
    // The bytes as stored (strings are UTF-8 in them): the credential is nowhere in them.
    const stored = encodeReadModel(full);
    expect(stored.includes("[redacted]")).toBe(true);
    expect(stored.includes("s3cret-in-config")).toBe(false);
  });

  it("answers every route that reads the model exactly as the full model does", async () => {
    for (const request of requests) {
      const fromFull = await answer(full, request);
      expect(fromFull.startsWith("200 "), `${request[1]}: ${fromFull.slice(0, 300)}`).toBe(true);
      expect(await answer(published, request), request[1]).toBe(fromFull);
    }
  });

  it("numbers and counts the partition page's offset syncs as the collector holds them", () => {
    const fromFull = shapeOffsetSyncs(full, syncKey);
    expect(shapeOffsetSyncs(published, syncKey)).toEqual(fromFull);
    expect([fromFull.total, fromFull.rows.length, fromFull.rows[0]!.index, fromFull.rows[63]!.index, fromFull.rows[0]!.upstream]).toEqual([100, 64, 99, 36, "1,485"]);
    expect(shapeOffsetSyncs(published, flowPartitionKey(FLOW, "orders", 3))).toEqual({ rows: [], total: 0 });
  });

  it("merged with another collector's model, keeps the count of the model whose syncs it serves", () => {
    const newer = (model: ReadModel, cycle: number): ReadModel => ({ ...model, snapshot: { ...model.snapshot, cycle, takenAt: model.snapshot.takenAt + 5_000 } });
    const elsewhere: ReadModel = { ...newer(published, 3), history: { offsetSyncs: new Map([["west->east|logs|0", [{ upstream: 1n, downstream: 1n }]]]) }, offsetSyncsHeld: new Map() };
    const merged = mergeReadModels([published, elsewhere])!;
    expect([merged.history.offsetSyncs.get(syncKey)?.length, merged.offsetSyncsHeld?.get(syncKey)]).toEqual([64, 100]);
    expect(shapeOffsetSyncs(merged, syncKey)).toEqual(shapeOffsetSyncs(full, syncKey));
    // A shard's new owner holds 3 syncs of the partition: its own, untrimmed, are served and counted.
    const moved: ReadModel = { ...newer(published, 4), history: { offsetSyncs: new Map([[syncKey, readSyncHistories(full.history.offsetSyncs).list(syncKey).slice(97)]]) }, offsetSyncsHeld: new Map() };
    const afterMove = mergeReadModels([published, moved])!;
    expect(shapeOffsetSyncs(afterMove, syncKey).rows.map((r) => [r.index, r.upstream])).toEqual([[2, "1,485"], [1, "1,470"], [0, "1,455"]]);
    expect(shapeOffsetSyncs(afterMove, syncKey).total).toBe(3);
  });
});
