import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "@/lib/alerts/types";
import { shardOf } from "@/lib/collector/shards";
import { createWebRuntime } from "@/lib/pipeline/runtime";
import { startPostgres, type PostgresServer } from "@/lib/sandbox/postgres";
import { sleep } from "@/lib/sandbox/processes";
import { runPurge, runResume } from "@/lib/sandbox/scenarios";
import type { PurgeReport } from "@/lib/sandbox/scenarios/purge";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createPostgresStore } from "@/lib/store";
import { deleteLeftovers } from "../support/runtime";

/**
 * Two collectors share the work through Kafka's group protocol (scaleOut, role collector, one PostgreSQL), each a
 * child process started as the server starts one. A purge raises a real DATA_LOSS on the flow east->west; the
 * collector holding the flow's shard is killed with SIGKILL; the other must poll the flow within the session
 * timeout plus one poll interval (and a heartbeat interval: the survivor learns of the rebalance from a heartbeat),
 * keep the alert firing under the same id with the same evidence, never raise it again, and the webhook receiver
 * must get its one notification exactly once. Two web instances serve the same firing alert throughout.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const FLOW = "east->west";
const SHARDS = 4;
const SESSION_MS = 6000;
const POLL_S = 2;
/** The membership's heartbeat interval at a 6 s session (lib/kafka/shard-membership.ts: a third of it). */
const HEARTBEAT_MS = SESSION_MS / 3;
const topic = `handover-${randomUUID().slice(0, 8)}`;
const suffix = randomUUID().slice(0, 8);

interface CycleLine {
  pid: number;
  cycle: number;
  takenAt: number;
  shards: number[];
  flows: string[];
  alerts: { id: string; state: string; topic: string | null; evidence: Record<string, unknown> }[];
}

interface Child {
  proc: ChildProcess;
  lines: CycleLine[];
  output: string[];
}

let postgres: PostgresServer;
let dir: string;
let receiver: Server;
const received: { type: string; id: string; topic: string | null }[] = [];
const children: Child[] = [];
let webs: ReturnType<typeof createWebRuntime>[] = [];
let purge: PurgeReport | null = null;

function startChild(configFile: string): Child {
  // Node itself with tsx as a loader (not the tsx CLI, which runs the script in a grandchild the kill would miss).
  const script = path.resolve("tests/integration/scale-out/handover-collector-child.ts");
  const proc = spawn(process.execPath, ["--import", "tsx", script, configFile], { stdio: ["ignore", "pipe", "pipe"] });
  const child: Child = { proc, lines: [], output: [] };
  let buffered = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("HANDOVER ")) child.lines.push(JSON.parse(line.slice("HANDOVER ".length)) as CycleLine);
      else child.output.push(line);
    }
  });
  proc.stderr!.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
  children.push(child);
  return child;
}

/** Polls until `check` holds (returns the time it took) or fails with what was seen last. */
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not reached within ${timeoutMs} ms: ${what()}`);
    await sleep(100);
  }
  return Date.now() - started;
}

const lastLine = (c: Child) => c.lines.at(-1);
const polls = (c: Child) => lastLine(c)?.flows.includes(FLOW) === true;
const lossOf = <T extends { topic: string | null }>(alerts: readonly T[]): T[] => alerts.filter((a) => a.topic === topic);
const describeChildren = () => JSON.stringify(children.map((c) => ({ pid: c.proc.pid, last: lastLine(c), tail: c.output.slice(-3) })));
const webView = (w: (typeof webs)[number]) =>
  lossOf(w.alerts.list({ type: "DATA_LOSS" })).map((a: AlertRecord) => [a.id, a.state, a.evidence.firstLostOffset, a.evidence.lastLostOffset, a.evidence.lostCount]);

beforeAll(async () => {
  postgres = await startPostgres();
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const payload = JSON.parse(body) as { transitions: { type: string; alert: AlertRecord }[] };
      for (const t of payload.transitions) received.push({ type: t.type, id: t.alert.id, topic: t.alert.topic });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-handover-"));
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  const configFile = path.join(dir, "gapwatch.config.yaml");
  writeFileSync(
    configFile,
    `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: ${POLL_S}\nconfigRefreshCycles: 1\n` +
      `store:\n  kind: postgres\n  url: ${postgres.url}\nnotifications:\n  webhooks:\n    - url: ${hook}\n` +
      `scaleOut:\n  homeCluster: east\n  shards: ${SHARDS}\n  groupId: gapwatch-handover-${suffix}\n  topic: __gapwatch_handover_${suffix}\n  sessionTimeoutMs: ${SESSION_MS}\n`,
  );
  webs = [0, 1].map(() => createWebRuntime(createPostgresStore(postgres.url), SESSION_MS + 3 * POLL_S * 1000));
  // The schema is migrated once, before the collectors start (they would race to migrate an empty database).
  await webs[0]!.store.listReadModelVersions();
  for (const w of webs) w.published.start();
  await ensureTopics(east, [{ topic, partitions: 1 }]);
  const producer = sandboxKafka(east).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 20 }, (_, seq) => ({ partition: 0, value: `${seq}` })) });
  await producer.disconnect();
  startChild(configFile);
  startChild(configFile);
});

afterAll(async () => {
  if (purge !== null) await runResume(state).catch(() => undefined);
  await Promise.all(
    children.map(async ({ proc }) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await Promise.race([exited, sleep(15_000)]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    }),
  );
  for (const w of webs) {
    await w.published.stop();
    await w.store.close();
  }
  await new Promise((resolve) => receiver?.close(resolve));
  await postgres?.stop();
  await deleteLeftovers([
    { bootstrap: east, topics: [topic, `__gapwatch_handover_${suffix}`], groups: [`gapwatch-handover-${suffix}`] },
    { bootstrap: west, topics: [`east.${topic}`] },
  ]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("scale-out: a collector SIGKILLed, its shard handed over", () => {
  it("the survivor polls the flow within session timeout + one poll interval; the alert stays firing, once", async () => {
    // The two collectors split the 4 shards; exactly one polls the flow.
    await waitFor(
      () => children.every((c) => lastLine(c)?.shards.length === SHARDS / 2) && children.filter(polls).length === 1,
      60_000,
      describeChildren,
    );
    expect(children.flatMap((c) => lastLine(c)!.shards).sort()).toEqual([0, 1, 2, 3]);
    const owner = children.find(polls)!;
    const survivor = children.find((c) => c !== owner)!;
    expect(lastLine(owner)!.shards).toContain(shardOf(FLOW, SHARDS));
    const remoteEnd = async () => (await fetchLogEnds(west, `east.${topic}`).catch(() => null))?.get(0)?.high ?? -1n;
    await waitFor(async () => (await remoteEnd()) >= 20n, 60_000, () => `east.${topic} not replicated`);

    purge = await runPurge(state, { topic, partition: 0, records: 300, resume: false });
    const fired = () => lossOf(lastLine(owner)?.alerts ?? []).filter((a) => a.state === "firing");
    await waitFor(() => fired().length === 1, 30_000, describeChildren);
    const alert = fired()[0]!;
    expect([alert.evidence.firstLostOffset, alert.evidence.lastLostOffset, alert.evidence.lostCount]).toEqual([purge.firstLostOffset, purge.lastLostOffset, "300"]);
    expect(purge.lostCount).toBe("300");
    await runResume(state);
    const expected = [[alert.id, "firing", purge.firstLostOffset, purge.lastLostOffset, "300"]];
    await waitFor(() => webs.every((w) => JSON.stringify(webView(w)) === JSON.stringify(expected)), 15_000, () => JSON.stringify(webs.map(webView)));
    expect(lossOf(lastLine(survivor)!.alerts)).toEqual([]);

    // SIGKILL: no LeaveGroup; the coordinator expires the session, the survivor gets every shard.
    const killedAt = Date.now();
    owner.proc.kill("SIGKILL");
    const webAnswers: string[] = [];
    const sampling = setInterval(() => webAnswers.push(...webs.map((w) => JSON.stringify(webView(w)))), 250);
    try {
      await waitFor(() => polls(survivor), 30_000, describeChildren);
      const gained = survivor.lines.find((l) => l.takenAt >= killedAt && l.flows.includes(FLOW))!;
      const handoverMs = gained.takenAt - killedAt;
      process.stderr.write(`[handover] survivor's first cycle of ${FLOW} started ${handoverMs} ms after the SIGKILL (session ${SESSION_MS} ms, poll ${POLL_S * 1000} ms)\n`);
      expect(gained.shards).toEqual([0, 1, 2, 3]);
      expect(handoverMs).toBeLessThanOrEqual(SESSION_MS + POLL_S * 1000 + HEARTBEAT_MS);
      // Its first cycle of the flow already holds the alert: firing, same id, same evidence.
      expect(lossOf(gained.alerts).map((a) => [a.id, a.state, a.evidence.firstLostOffset, a.evidence.lastLostOffset, a.evidence.lostCount])).toEqual(expected);
      // Three more cycles: still firing, never raised again.
      await waitFor(() => survivor.lines.filter((l) => l.takenAt > gained.takenAt).length >= 3, 30_000, describeChildren);
      await waitFor(() => webs.every((w) => w.models.latest()?.snapshot.flows.some((f) => f.id === FLOW) === true && w.models.latest()!.snapshot.takenAt >= gained.takenAt), 15_000, () => "web instances behind");
    } finally {
      clearInterval(sampling);
    }
    expect(lossOf(lastLine(survivor)!.alerts).map((a) => [a.id, a.state, a.evidence.firstLostOffset, a.evidence.lastLostOffset, a.evidence.lostCount])).toEqual(expected);
    expect(new Set(webAnswers)).toEqual(new Set([JSON.stringify(expected)]));
    expect(webAnswers.length).toBeGreaterThan(20);

    // The receiver got the one transition exactly once (give a re-send the time to arrive, were there one).
    await sleep(3000);
    expect(lossOf(received)).toEqual([{ type: "fired", id: alert.id, topic }]);
    const events = (await webs[0]!.store.listEvents(0, Date.now(), 1000)).filter((e) => (e.data as { id?: string } | null)?.id === alert.id);
    expect(events.map((e) => e.kind)).toEqual(["alert-fired"]);
  });
});
