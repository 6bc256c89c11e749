import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Snapshot } from "@/lib/collector/types";
import { loadConfigFile } from "@/lib/config";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { createCollectingRuntime, createWebRuntime } from "@/lib/pipeline/runtime";
import { startPostgres, type PostgresServer } from "@/lib/sandbox/postgres";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { createPostgresStore } from "@/lib/store";
import { listFlowSummaries, listPartitionRows } from "@/lib/views/flows";
import { cycleUntil } from "../support/runtime";

/**
 * GAPWATCH_ROLE=collector and GAPWATCH_ROLE=web sharing one real PostgreSQL, against the real sandbox. Both
 * runtimes run in this test process (the objects `next start` would create per role; a second production build
 * for two server processes costs about 150 s of CPU in CI), so the web side is checked at the socket level: while
 * it serves, this process holds no connection to any Kafka broker.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const kafkaPorts = new Set(Object.values(state.clusters).flatMap((c) => c.bootstrap.split(",").map((b) => Number(b.split(":").at(-1)))));
const topic = `roles-${randomUUID().slice(0, 8)}`;
const FLOW = "east->west";

let postgres: PostgresServer;
let dir: string;
let collector: ReturnType<typeof createCollectingRuntime>;
let web: ReturnType<typeof createWebRuntime>;

/** This process's open TCP connections to a Kafka bootstrap port (the sandbox's brokers are single-node). */
function listKafkaSockets(): string[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles
    .filter((h): h is Socket => h instanceof Socket && h.remotePort !== undefined && kafkaPorts.has(h.remotePort))
    .map((s) => `${s.remoteAddress}:${s.remotePort}`);
}

/** Polls until `check` holds, failing after `ms` with what it waited for. */
async function waitFor<T>(what: string, ms: number, read: () => T, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + ms;
  for (let value = read(); ; value = read()) {
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await sleep(200);
  }
}

const rowsOf = (s: Snapshot) => s.flows.find((f) => f.id === FLOW)?.partitions.filter((p) => p.topic === topic) ?? [];
const viewOf = (model: ReadModel) => {
  const flow = model.snapshot.flows.find((f) => f.id === FLOW)!;
  return { summaries: listFlowSummaries(model.snapshot), rows: listPartitionRows(flow, model.snapshot.takenAt).filter((r) => r.topic === topic) };
};

beforeAll(async () => {
  postgres = await startPostgres();
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-roles-"));
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  const file = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(file, `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: 5\nconfigRefreshCycles: 1\nstore:\n  kind: postgres\n  url: ${postgres.url}\n`);
  const config = loadConfigFile(file);
  // The web instance starts first, on an empty store: it has nothing to serve and opens no Kafka connection.
  web = createWebRuntime(createPostgresStore(postgres.url));
  web.published.start();
  collector = createCollectingRuntime(config, "collector");
});

afterAll(async () => {
  await collector?.collector.stop();
  collector?.alerts.stop();
  await collector?.store.close();
  await web?.published.stop();
  await web?.store.close();
  await postgres?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("roles: a collector and a web instance sharing one PostgreSQL", () => {
  it("the web instance serves the collector's flows, partitions and offsets, and opens no Kafka connection", async () => {
    await sleep(2000);
    expect([web.models.latest(), listKafkaSockets()]).toEqual([null, []]);

    await ensureTopics(east, [{ topic, partitions: 3 }]);
    // Idempotent: the counts below are exact, and a plain producer's retry appended partitions 1 and 2 twice once in CI
    // (log ends 10 and 14 for 5 and 7 sent, 2026-12-07); the broker drops an idempotent producer's resent batch.
    const producer = sandboxKafka(east).producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [3, 5, 7].flatMap((n, partition) => Array.from({ length: n }, (_, seq) => ({ partition, value: `${partition}-${seq}` }))) });
    await producer.disconnect();
    const replicated = await cycleUntil(
      collector.collector,
      (s) => rowsOf(s).map((p) => [p.sourceLogEnd, p.targetLogEnd, p.lag]).join(" ") === "3,3,0 5,5,0 7,7,0",
      `${topic} replicated`,
      { timeoutMs: 90_000, describe: (s) => JSON.stringify(rowsOf(s).map((p) => [p.partition, `${p.sourceLogEnd}`, `${p.targetLogEnd}`])) },
    );
    const published = collector.pipeline.latest()!;
    expect(published.snapshot).toBe(replicated);

    // The web instance polls the (shard, cycle) rows every 1.5 s and loads the new body.
    const seen = await waitFor("the web instance to serve the collector's cycle", 15_000, () => web.models.latest(), (m) => m?.snapshot.cycle === replicated.cycle);
    expect(seen!.snapshot.takenAt).toBe(replicated.takenAt);
    const onWeb = viewOf(seen!);
    expect(onWeb.rows.map((r) => [r.partition, r.sourceLogEnd, r.targetLogEnd, r.lag])).toEqual([
      [0, 3n, 3n, 0n],
      [1, 5n, 5n, 0n],
      [2, 7n, 7n, 0n],
    ]);
    expect(onWeb).toEqual(viewOf(published));
    expect(seen!.snapshot.flows).toEqual(published.snapshot.flows);
    expect(web.alerts.list()).toEqual(collector.alerts.list());

    // The collector stops and closes its Kafka clients; the web instance keeps serving the same model without Kafka.
    await collector.collector.stop();
    await waitFor("the collector's Kafka connections to close", 10_000, listKafkaSockets, (s) => s.length === 0);
    await web.published.refresh();
    await sleep(3000);
    expect(listKafkaSockets()).toEqual([]);
    expect(viewOf(web.models.latest()!)).toEqual(viewOf(published));
  });
});
