import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAlertService } from "@/lib/alerts/alert-service";
import { parseConfigText } from "@/lib/config";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { publishReadModel } from "@/lib/pipeline/published-read-models";
import { createWebRuntime } from "@/lib/pipeline/runtime";
import { createSqliteStore, type Store } from "@/lib/store";
import { makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});
const history = { offsetSyncs: new Map() };
/** MM2 copied everything below 1200; `logStart` 1700 means records 1200–1699 were deleted before it copied them. */
const cycleWith = (cycle: number, logStart: bigint) =>
  makeSnapshot({ cycle, partitions: [makeFlowPartition({ sourceLogStart: logStart, sourceLogEnd: 2000n, mm2Position: 1200n, targetLogEnd: 5200n, latestSync: { upstream: 1199n, downstream: 5199n } })] });

let dir = "";
let store: Store | null = null;

afterEach(async () => {
  await store?.close();
  store = null;
  rmSync(dir, { recursive: true, force: true });
});

describe("web runtime (GAPWATCH_ROLE=web) over a collector's published read model", () => {
  it("serves the published alerts, and queues an acknowledgement that the collector applies at its next cycle", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-web-"));
    const shared = (store = createSqliteStore(path.join(dir, "gapwatch.db")));
    const alertService = createAlertService(shared, config);
    const pipeline = new CyclePipeline(config, shared, alertService);
    const first = cycleWith(1, 1000n);
    await pipeline.processCycle(first, null, history);
    const second = cycleWith(2, 1700n);
    await publishReadModel(shared, "all", await pipeline.processCycle(second, first, history));

    const web = createWebRuntime(shared);
    expect(web.models.latest()).toBeNull();
    await web.published.refresh();
    const [lost] = web.alerts.list({ state: "firing" });
    expect([lost?.type, lost?.acknowledged, web.models.latest()?.snapshot.cycle]).toEqual(["DATA_LOSS", null, 2]);
    expect(web.alerts.list({ type: "REPLICATION_LAG" })).toEqual([]);

    const acked = await web.alerts.acknowledge(lost!.id, "admin", T0 + 15_000);
    expect(acked?.acknowledged).toEqual({ by: "admin", at: T0 + 15_000 });
    expect(await web.alerts.acknowledge("ffffffffffffffff", "admin", T0 + 15_000)).toBeNull();
    expect(await shared.listAcknowledgementRequests()).toEqual([{ alertId: lost!.id, by: "admin", at: T0 + 15_000 }]);
    // Until the collector's next cycle is published, the web instance shows what the collector last published.
    await web.published.refresh();
    expect(web.alerts.list()[0]?.acknowledged).toBeNull();

    const third = await pipeline.processCycle(cycleWith(3, 1700n), second, history);
    expect(third.alerts.map((a) => [a.type, a.state, a.acknowledged])).toEqual([["DATA_LOSS", "firing", { by: "admin", at: T0 + 15_000 }]]);
    expect(await shared.listAcknowledgementRequests()).toEqual([]);
    expect((await shared.listEvents(0, T0 + 60_000, 10)).map((e) => [e.kind, e.at])).toEqual([["alert-acknowledged", T0 + 15_000], ["alert-fired", T0 + 10_000]]);
    await publishReadModel(shared, "all", third);
    await web.published.refresh();
    expect([web.models.latest()?.snapshot.cycle, web.alerts.list()[0]?.acknowledged]).toEqual([3, { by: "admin", at: T0 + 15_000 }]);
    await web.published.stop();
  });

  it("with sharing collectors, leaves out a collector's model older than the bound (a dead collector's)", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-web-"));
    const shared = (store = createSqliteStore(path.join(dir, "gapwatch.db")));
    const pipeline = new CyclePipeline(config, shared, createAlertService(shared, config));
    const now = Date.now();
    // Collector a polled the flow 60 s ago and went silent; collector b, live, holds no flow.
    await publishReadModel(shared, "collector-a", await pipeline.processCycle(makeSnapshot({ cycle: 7, takenAt: now - 60_000 }), null, history));
    await publishReadModel(shared, "collector-b", await pipeline.processCycle({ ...makeSnapshot({ cycle: 3, takenAt: now - 1_000 }), flows: [] }, null, history));

    const bounded = createWebRuntime(shared, 30_000);
    await bounded.published.refresh();
    expect([bounded.models.latest()?.snapshot.cycle, bounded.models.latest()?.snapshot.flows.map((f) => f.id)]).toEqual([3, []]);
    const unbounded = createWebRuntime(shared);
    await unbounded.published.refresh();
    expect([unbounded.models.latest()?.snapshot.cycle, unbounded.models.latest()?.snapshot.flows.map((f) => f.id)]).toEqual([7, ["east->west"]]);
  });
});
