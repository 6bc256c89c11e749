import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gapwatchDir } from "@/lib/sandbox/paths";
import { type Container, runPodman, startContainer } from "@/lib/sandbox/podman";
import { startPostgres, type PostgresServer } from "@/lib/sandbox/postgres";
import { sleep } from "@/lib/sandbox/processes";
import { formatRemoteTopicName } from "@/lib/sandbox/remote-topic";
import { runPurge } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { buildImage, type ImageBuild, imageUid } from "@/scripts/image/build-image";

/**
 * The image `npm run image` builds, run by Debian's podman against this project's sandbox: role all (read-only root,
 * the /data volume, config and a secret from mounted files) serves the overview, a flow, a partition and the exact
 * DATA_LOSS of a real purge; while its collector process is SIGSTOPped it stays ready (the pages are how an operator
 * sees the outage) and says the data is stale, in readiness, /api/health and a banner on every page, until SIGCONT;
 * liveness 200 throughout; SIGTERM stops it within seconds. Then roles collector and web from the same image
 * share a real PostgreSQL. The figures (build time, size, start to first cycle) are printed for the report.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const flowPath = "/flows/east-%3Ewest";
const topic = `image-${randomUUID().slice(0, 8)}`;
const pollIntervalSeconds = 2;
const adminSecret = `image-admin-${randomUUID()}`;
const root = path.join(gapwatchDir, "image-test");
const containers = new Set<Container>();
let image: ImageBuild;
let postgres: PostgresServer | null = null;

const say = (line: string) => void process.stderr.write(`[image] ${line}\n`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A directory the image's user (uid 10001) can read (`config`) or write (`data`). */
function makeDir(name: string, owner: "root" | "gapwatch"): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  if (owner === "gapwatch") chownSync(dir, imageUid, imageUid);
  chmodSync(dir, 0o755);
  return dir;
}

/** The sandbox's clusters and Connect, this poll interval, and the admin secret as a `${…}` reference. */
function writeConfig(name: string, store: string): string {
  const dir = makeDir(name, "root");
  const clusters = Object.entries(state.clusters).map(([alias, c]) => `  - alias: ${alias}\n    bootstrap: ${c.bootstrap}`).join("\n");
  const yaml = `clusters:\n${clusters}\nconnect:\n  - name: sandbox\n    url: ${state.connect.url}\npollIntervalSeconds: ${pollIntervalSeconds}\nadmin:\n  secret: \${GW_ADMIN_SECRET}\n${store}`;
  writeFileSync(path.join(dir, "gapwatch.config.yaml"), yaml, { mode: 0o644 });
  // The secret is a mounted file only (GW_ADMIN_SECRET_FILE), as a Kubernetes Secret volume gives it.
  writeFileSync(path.join(dir, "admin-secret"), `${adminSecret}\n`, { mode: 0o644 });
  return dir;
}

async function startGapwatch(role: "all" | "collector" | "web", configDir: string, dataDir: string | null): Promise<{ container: Container; url: string }> {
  const port = await freePort();
  const container = await startContainer({
    image: image.tag,
    env: { PORT: String(port), GAPWATCH_ROLE: role, GW_ADMIN_SECRET_FILE: "/config/admin-secret" },
    volumes: { [configDir]: "/config:ro", ...(dataDir === null ? {} : { [dataDir]: "/data" }) },
  });
  containers.add(container);
  return { container, url: `http://127.0.0.1:${port}` };
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: "manual" });
  return { status: response.status, text: await response.text() };
}

/** Polls `url` until `check` holds; fails with the last answer and the container's log. */
async function waitFor(what: string, url: string, check: (r: { status: number; text: string }) => boolean, container: Container, ms: number) {
  const deadline = Date.now() + ms;
  let last: { status: number; text: string } | string = "no answer";
  while (Date.now() < deadline) {
    last = await get(url).catch((err: unknown) => String(err));
    if (typeof last !== "string" && check(last)) return last;
    await sleep(250);
  }
  const log = await container.logs().catch(() => "");
  throw new Error(`timed out after ${ms / 1000} s waiting for ${what}; last answer: ${JSON.stringify(last).slice(0, 600)}\n${log.split("\n").slice(-25).join("\n")}`);
}

/** Asks /api/health/live every 500 ms until stopped; resolves with every answer's status (0: no answer). */
function watchLiveness(url: string): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      statuses.push(await get(`${url}/api/health/live`).then((r) => r.status, () => 0));
      await sleep(500);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}

/** The collector process of a role-all container: the one child of the container's PID 1 (the Next.js server). */
function readCollectorPid(serverPid: number): number {
  const children = readFileSync(`/proc/${serverPid}/task/${serverPid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  expect(children).toHaveLength(1);
  return children[0]!;
}

beforeAll(async () => {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  image = await buildImage({ log: say });
  say(`${image.tag}: ${(image.sizeBytes / 1e6).toFixed(1)} MB, ${image.reused ? "reused" : "built"} in ${image.seconds.toFixed(0)} s`);
}, 1_500_000);

afterAll(async () => {
  for (const container of containers) await container.stop(5).catch(() => undefined);
  await postgres?.stop();
});

describe("the OCI image, run with podman against the sandbox", () => {
  it("is at most 200 MB, labelled per the OCI spec, non-root, with /data as its volume", async () => {
    expect(image.sizeBytes).toBeLessThanOrEqual(200e6);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(image.tag).toBe(`gapwatch:${pkg.version}`);
    expect(image.labels["org.opencontainers.image.version"]).toBe(pkg.version);
    expect(image.labels["org.opencontainers.image.title"]).toBe("gapwatch");
    expect(image.labels["org.opencontainers.image.revision"]).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
    const config = JSON.parse(await runPodman(["image", "inspect", "--format", "{{json .Config}}", image.tag])) as {
      User: string;
      Volumes: Record<string, unknown>;
      Entrypoint: string[];
      StopSignal: string;
    };
    expect([config.User, Object.keys(config.Volumes), config.Entrypoint, config.StopSignal]).toEqual([
      "10001:10001",
      ["/data"],
      ["/usr/local/bin/node", "server.js"],
      "SIGTERM",
    ]);
  });

  it("role all: overview, flow, partition and the exact DATA_LOSS of a purge; a SIGSTOPped collector's stale data is named", async () => {
    await ensureTopics(east, [{ topic, partitions: 2 }]);
    const producer = sandboxKafka(east).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 40 }, (_, i) => ({ partition: i % 2, value: `image-${i}` })) });
    await producer.disconnect();

    const started = Date.now();
    const { container, url } = await startGapwatch("all", writeConfig("config-all", ""), makeDir("data-all", "gapwatch"));
    const ready = await waitFor("readiness 200", `${url}/api/health/ready`, (r) => r.status === 200, container, 180_000);
    say(`role all: start to first cycle (readiness 200) ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(JSON.parse(ready.text)).toMatchObject({ status: "ready", role: "all", reason: null });

    // Ground truth from Kafka: MM2 copied the topic; then the container's pages show it.
    const remote = formatRemoteTopicName("east", topic);
    const deadline = Date.now() + 120_000;
    while (((await fetchLogEnds(west, remote).catch(() => null))?.get(0)?.high ?? -1n) < 20n && Date.now() < deadline) await sleep(1000);
    const overview = await waitFor("the overview listing the flow", `${url}/`, (r) => r.status === 200 && r.text.includes("east-&gt;west"), container, 60_000);
    expect(overview.text).not.toContain(adminSecret);
    await waitFor(`the flow page listing ${topic}`, `${url}${flowPath}`, (r) => r.status === 200 && r.text.includes(topic), container, 60_000);
    const partition = await get(`${url}${flowPath}/topics/${topic}/0`);
    expect([partition.status, partition.text.includes(`Partition ${topic}-0`)]).toEqual([200, true]);

    const report = await runPurge(state, { topic, partition: 0, records: 200, resume: true });
    const alerts = await waitFor("DATA_LOSS for the purge", `${url}/api/alerts?type=DATA_LOSS&state=firing`, (r) => r.text.includes(topic), container, 120_000);
    const loss = (JSON.parse(alerts.text) as { alerts: { topic: string; partition: number; evidence: Record<string, string> }[] }).alerts.filter((a) => a.topic === topic);
    expect(loss.map((a) => [a.partition, a.evidence.firstLostOffset, a.evidence.lastLostOffset, a.evidence.lostCount])).toEqual([
      [0, report.firstLostOffset, report.lastLostOffset, report.lostCount],
    ]);

    // The collector process stopped (SIGSTOP by its host PID): readiness stays 200 and names the stale data, as
    // /api/health (degraded) and the pages' banner do; all clear again after SIGCONT. Liveness, asked every 500 ms from
    // before the SIGSTOP until the data is fresh again, answers 200 each time.
    const isStale = (r: { status: number; text: string }) => r.status === 200 && (JSON.parse(r.text) as { staleData: string | null }).staleData !== null;
    await waitFor("fresh data before the SIGSTOP", `${url}/api/health/ready`, (r) => r.status === 200 && !isStale(r), container, 60_000);
    const serverPid = await container.hostPid();
    const collectorPid = readCollectorPid(serverPid);
    // Both processes run as the image's user, not root.
    for (const pid of [serverPid, collectorPid]) expect(readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^Uid:\t10001\t10001\t/m);
    const live = watchLiveness(url);
    process.kill(collectorPid, "SIGSTOP");
    let stopped: { status: number; text: string };
    let health: { status: number; text: string };
    try {
      stopped = await waitFor("readiness naming stale data", `${url}/api/health/ready`, isStale, container, 60_000);
      health = await waitFor("/api/health degraded", `${url}/api/health`, (r) => r.text.includes('"stale":"cycle'), container, 30_000);
      await waitFor("the overview's stale data banner", `${url}/`, (r) => r.status === 200 && r.text.includes("data-testid=\"stale-data-banner\""), container, 60_000);
    } finally {
      process.kill(collectorPid, "SIGCONT");
    }
    const body = JSON.parse(stopped.text) as { status: string; reason: string | null; ageMs: number; maxAgeMs: number; staleData: string };
    expect([body.status, body.reason, body.maxAgeMs, body.ageMs > body.maxAgeMs]).toEqual(["ready", null, 3 * pollIntervalSeconds * 1000, true]);
    expect(body.staleData).toMatch(/^the last poll cycle \(cycle \d+\) finished \d+(\.\d)? s ago, more than 3 poll intervals \(6\.0 s\): a collector is stuck or stopped/);
    expect((JSON.parse(health.text) as { status: string }).status).toBe("degraded");
    await waitFor("fresh data after SIGCONT", `${url}/api/health/ready`, (r) => r.status === 200 && !isStale(r), container, 60_000);
    const liveStatuses = await live.stop();
    expect(liveStatuses.length).toBeGreaterThan(10);
    expect(new Set(liveStatuses)).toEqual(new Set([200]));

    // SIGTERM (podman stop): the server stops its collector process and exits 0 well within the 10 s grace.
    const { exitCode, seconds } = await container.stop(10);
    containers.delete(container);
    say(`role all: SIGTERM to exit ${seconds.toFixed(1)} s`);
    expect([exitCode, seconds < 10]).toEqual([0, true]);
  }, 600_000);

  it("roles collector and web from the same image share a real PostgreSQL", async () => {
    postgres = await startPostgres();
    const config = writeConfig("config-pg", `store:\n  kind: postgres\n  url: ${postgres.url}\n`);
    const web = await startGapwatch("web", config, null);
    const webEmpty = await waitFor("the web instance to answer", `${web.url}/api/health/ready`, (r) => r.status === 503, web.container, 120_000);
    expect(JSON.parse(webEmpty.text)).toMatchObject({ role: "web", cycle: null });

    const started = Date.now();
    const collector = await startGapwatch("collector", config, null);
    await waitFor("the collector's readiness 200", `${collector.url}/api/health/ready`, (r) => r.status === 200, collector.container, 180_000);
    say(`role collector: start to first cycle ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect((await get(`${collector.url}/api/flows`)).status).toBe(503);

    const ready = await waitFor("the web instance's readiness 200", `${web.url}/api/health/ready`, (r) => r.status === 200, web.container, 60_000);
    expect(JSON.parse(ready.text)).toMatchObject({ status: "ready", role: "web" });
    const flows = await get(`${web.url}/api/flows`);
    expect(flows.status).toBe(200);
    expect((JSON.parse(flows.text) as { flows: { id: string }[] }).flows.map((f) => f.id)).toContain("east->west");
    await waitFor(`the web instance's flow page listing ${topic}`, `${web.url}${flowPath}`, (r) => r.status === 200 && r.text.includes(topic), web.container, 60_000);

    // The collector stopped: the web instance stays ready and keeps serving, saying the model is stale.
    const { exitCode } = await collector.container.stop(10);
    containers.delete(collector.container);
    expect(exitCode).toBe(0);
    const stale = await waitFor("the web instance naming stale data", `${web.url}/api/health/ready`, (r) => r.text.includes('"staleData":"the newest'), web.container, 60_000);
    expect([stale.status, JSON.parse(stale.text)]).toMatchObject([200, { status: "ready", role: "web", reason: null }]);
    await waitFor("the flow page's stale data banner", `${web.url}${flowPath}`, (r) => r.status === 200 && r.text.includes("A collector stopped publishing"), web.container, 30_000);
    expect((await get(`${web.url}/api/health/live`)).status).toBe(200);
  }, 600_000);
});
