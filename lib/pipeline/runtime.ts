import { type AlertService, createAlertService } from "@/lib/alerts/alert-service";
import { acknowledgeAlert } from "@/lib/alerts/reconcile-alerts";
import type { AlertRecord, RiskRecord } from "@/lib/alerts/types";
import { Collector } from "@/lib/collector/collector";
import { describeThisCollector, ShardAssignment } from "@/lib/collector/shards";
import { getConfig, type GapwatchConfig } from "@/lib/config";
import { type GapwatchRole, readRole } from "@/lib/config/role";
import { ConfigError } from "@/lib/errors";
import { createShardMembership, type ShardMembership } from "@/lib/kafka/shard-membership";
import { getLogger } from "@/lib/logger";
import { createPostgresStore, createSqliteStore, resolveStorePath, type Store } from "@/lib/store";
import { type CollectorProcess, serveParentProcess, startCollectorProcess } from "./collector-process";
import { CyclePipeline } from "./cycle-pipeline";
import { CycleRecorder } from "./cycle-recording";
import { PublishedReadModels, publishReadModel } from "./published-read-models";
import type { ReadModel } from "./read-model";

/** The alerts pages and routes read and act on, in every role. */
export interface AlertReader {
  list(filter?: { state?: string; type?: string; flow?: string }): AlertRecord[];
  risks(): RiskRecord[];
  /** The acknowledged alert, or null when there is no alert with this id. */
  acknowledge(id: string, by: string, now: number): Promise<AlertRecord | null>;
}

/** What pages and routes read, in every role: the store, the latest read model, the alerts. */
export interface ServingRuntime {
  role: GapwatchRole;
  store: Store;
  models: { latest(): ReadModel | null };
  alerts: AlertReader;
  /** Role all's server: the metrics of its collector process (the cycle time, lag, alerts live there). */
  collectorMetrics?: () => Promise<string>;
  /** Roles all (its server) and web: when this process last read the published models (null before any read). */
  storeReadAt?: () => number | null;
}

/** A process that polls (roles all and collector): its collector, pipeline and alert service. */
interface Runtime extends ServingRuntime {
  collector: Collector;
  alerts: AlertService;
  pipeline: CyclePipeline;
  /** With scaleOut (role collector): the shards this collector holds, and its membership of the collectors' group. */
  sharding: { assignment: ShardAssignment; membership: ShardMembership; collectorId: string } | null;
}

/** A web instance: the read models collectors published to the shared store. */
interface WebRuntime extends ServingRuntime {
  published: PublishedReadModels;
}

/** The read model key of a collector that polls everything (no scaleOut); sharing collectors publish under their id. */
const wholeShard = "all";
/** How often joining the collectors' group is tried again while the home cluster cannot be reached. */
const joinRetryMs = 5000;

const holder = globalThis as typeof globalThis & { __gapwatchRuntime?: Runtime; __gapwatchWebRuntime?: WebRuntime };

/**
 * The server's one collector, pipeline and store, created on first use and cached on globalThis so that
 * dev hot reload does not start a second loop (after taxonomy's lib/db.ts). Roles all and collector only: a web
 * instance polls nothing (getServingRuntime is what pages use in every role).
 */
export function getRuntime(): Runtime {
  if (!holder.__gapwatchRuntime) {
    const config = getConfig();
    const role = readRole(config.store);
    if (role === "web") throw new ConfigError("GAPWATCH_ROLE=web polls nothing: this process has no collector or pipeline");
    holder.__gapwatchRuntime = createCollectingRuntime(config, role);
  }
  return holder.__gapwatchRuntime;
}

/**
 * What pages and routes read: the store's published models (role web, and role all's server once its collector
 * process runs: startServerRuntime) or this process's pipeline (role collector; role all in scripts and tests).
 */
export function getServingRuntime(): ServingRuntime {
  if (holder.__gapwatchWebRuntime) return holder.__gapwatchWebRuntime;
  const config = getConfig();
  if (readRole(config.store) !== "web") return getRuntime();
  holder.__gapwatchWebRuntime ??= createWebRuntime(openStore(config.store), readStaleAfterMs(config));
  return holder.__gapwatchWebRuntime;
}

/**
 * A polling runtime; a collector publishes each cycle's read model to the store for the web instances. With scaleOut
 * and role collector it shares the flows with the other collectors: it polls, judges, stores and notifies only the
 * flows (and clusters) of the shards the collectors' group assigns it, and publishes under its own collector id.
 */
export function createCollectingRuntime(
  config: GapwatchConfig,
  role: "all" | "collector",
  options: { publish?: boolean } = {},
): Runtime {
  const store = openStore(config.store);
  const sharding = role === "collector" && config.scaleOut !== undefined ? createSharding(config, config.scaleOut) : null;
  if (config.scaleOut !== undefined && sharding === null) {
    // Said at start, so that nobody believes a role-all process shares its work (README: scaleOut).
    getLogger("runtime").warn({ homeCluster: config.scaleOut.homeCluster }, "scaleOut applies to GAPWATCH_ROLE=collector; this process polls every flow");
  }
  const collector = new Collector(config, store, sharding?.assignment ?? null);
  const alerts = createAlertService(store, config, sharding?.assignment ?? null);
  const pipeline = new CyclePipeline(config, store, alerts, collector, sharding?.assignment ?? null);
  const shardKey = sharding?.collectorId ?? wholeShard;
  const recorder = createCycleRecorder();
  collector.onCycle(async (current, previous, history) => {
    recorder?.record(current, previous, history);
    const model = await pipeline.runCycle(current, previous, history);
    if (role === "collector" || options.publish === true) await publishReadModel(store, shardKey, withShardHolding(model, sharding));
  });
  return { role, collector, store, alerts, pipeline, models: pipeline, sharding };
}

/** The model as published: a sharing collector's names the shards its cycle held (the web serves by them). */
function withShardHolding(model: ReadModel, sharding: Runtime["sharding"]): ReadModel {
  if (sharding === null) return model;
  return { ...model, shardHolding: { count: sharding.assignment.shards, held: [...sharding.assignment.held()] } };
}

/**
 * With GAPWATCH_RECORD_CYCLES=<file>, every cycle the pipeline gets is appended to that file, to replay it later
 * (docs/development.md, "Replaying recorded cycles"). A development aid: the file grows by a snapshot a cycle.
 */
function createCycleRecorder(): CycleRecorder | null {
  const file = process.env.GAPWATCH_RECORD_CYCLES;
  if (file === undefined || file === "") return null;
  getLogger("runtime").warn({ file }, "recording every cycle for replay (GAPWATCH_RECORD_CYCLES)");
  return new CycleRecorder(file);
}

/** A collector's shard assignment, fed by its membership of the collectors' group on the home cluster. */
function createSharding(config: GapwatchConfig, scaleOut: NonNullable<GapwatchConfig["scaleOut"]>): NonNullable<Runtime["sharding"]> {
  const home = config.clusters.find((c) => c.alias === scaleOut.homeCluster)!;
  const assignment = new ShardAssignment(scaleOut.shards);
  const membership = createShardMembership({
    connection: { alias: home.alias, bootstrap: home.bootstrap, tls: home.tls, sasl: home.sasl, clientId: "gapwatch" },
    topic: scaleOut.topic,
    shards: scaleOut.shards,
    groupId: scaleOut.groupId,
    sessionTimeoutMs: scaleOut.sessionTimeoutMs,
    onChange: (held) => assignment.update(held),
  });
  return { assignment, membership, collectorId: describeThisCollector() };
}

/**
 * How old a published model that does not name its shards (a collector of an older version) may be and still be
 * served: a live collector publishes every poll interval (plus its cycle's time); one silent for a session timeout
 * plus three intervals is dead, and its shards are another's. Models that name their shards are served until newer
 * ones cover them (published-read-models.ts). Without scaleOut, none is ever too old (one collector's is all there is).
 */
function readStaleAfterMs(config: GapwatchConfig): number | undefined {
  return config.scaleOut === undefined ? undefined : config.scaleOut.sessionTimeoutMs + 3 * config.pollIntervalSeconds * 1000;
}

/**
 * A web runtime: serves the published read models; an acknowledgement is queued in the store for the collector
 * that holds the alert (it applies it at its next cycle, and the pages show it once that cycle is published).
 */
export function createWebRuntime(store: Store, staleAfterMs?: number): WebRuntime {
  const published = new PublishedReadModels(store, { staleAfterMs });
  const alertsOf = () => published.latest()?.alerts ?? [];
  return {
    role: "web",
    store,
    published,
    models: published,
    storeReadAt: () => published.readAt(),
    alerts: {
      list: (filter = {}) =>
        alertsOf()
          .filter((a) => (!filter.state || a.state === filter.state) && (!filter.type || a.type === filter.type) && (!filter.flow || a.flow === filter.flow))
          .sort((a, b) => b.lastSeen - a.lastSeen),
      risks: () => [...(published.latest()?.risks ?? [])].sort((a, b) => a.key.localeCompare(b.key)),
      acknowledge: async (id, by, now) => {
        const alert = alertsOf().find((a) => a.id === id);
        if (alert === undefined) return null;
        await store.requestAcknowledgement({ alertId: id, by, at: now });
        return acknowledgeAlert([alert], id, by, now)[0] ?? null;
      },
    },
  };
}

/** The configured store: PostgreSQL (shared by several processes) or the SQLite file of this machine. */
function openStore(config: GapwatchConfig["store"]): Store {
  if (config.kind === "postgres") {
    // The config schema requires a url for postgres; this guards the type, never a silent fall-back to SQLite.
    if (config.url === undefined) throw new ConfigError("store kind postgres needs store.url");
    return createPostgresStore(config.url);
  }
  return createSqliteStore(resolveStorePath(config.path));
}

/**
 * The server's start (instrumentation.ts). Role all: the collector and pipeline run in a child process that publishes
 * each cycle to the SQLite file (collector-process.ts), and this process serves the published read model, so the
 * HTTP load never delays a cycle; SIGTERM/SIGINT stop the child by PID first. Roles collector and web: startRuntime.
 * Returns role all's collector process, or null for the other roles.
 */
export function startServerRuntime(): Pick<CollectorProcess, "pid" | "stop"> | null {
  const config = getConfig();
  if (readRole(config.store) !== "all") {
    startRuntime();
    return null;
  }
  // Opened (and migrated) here before the child opens the same file: the two never race on a migration.
  const web: WebRuntime = createWebRuntime(openStore(config.store));
  const child = startCollectorProcess(() => void web.published.refresh().catch(() => undefined));
  holder.__gapwatchWebRuntime = { ...web, role: "all", collectorMetrics: () => child.renderMetrics() };
  web.published.start();
  getLogger("runtime").info({ role: "all", collectorPid: child.pid() }, "started: serving; the collector has its own process");
  const stop = async () => {
    await child.stop();
    await web.published.stop();
  };
  exitOnSignals(stop, web.store);
  return { pid: () => child.pid(), stop };
}

/**
 * Role all's collector process (collector-process.ts): polls as role all does, publishes each cycle's read model
 * for the server's process and tells it so; answers its metrics requests with `renderMetrics`; stops on SIGTERM,
 * SIGINT, or when the server's process is gone.
 */
export function runCollectorChild(renderMetrics: () => Promise<string>): void {
  const config = getConfig();
  const role = readRole(config.store);
  if (role !== "all") throw new ConfigError(`the collector process belongs to GAPWATCH_ROLE=all, this one has ${role}`);
  const runtime = createCollectingRuntime(config, "all", { publish: true });
  holder.__gapwatchRuntime = runtime;
  const stopLoop = startCollecting(runtime);
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= stopLoop()
      .then(() => runtime.store.close())
      .finally(() => process.exit(0));
    return stopping;
  };
  const published = serveParentProcess(renderMetrics, stop);
  // Listeners run in order: this one after the runtime's own, which published the cycle.
  runtime.collector.onCycle((snapshot) => published(snapshot.cycle));
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
  getLogger("runtime").info({ role: "all", pid: process.pid }, "collector process polling");
}

/**
 * Starts this role's loop with the server — the collector (all, collector) or the read of published models (web) —
 * and stops it cleanly on SIGTERM/SIGINT.
 */
export function startRuntime(): void {
  const serving = getServingRuntime();
  const stopLoop = serving.role === "web" ? startWebLoop() : startCollectorLoop();
  getLogger("runtime").info({ role: serving.role }, "started");
  exitOnSignals(stopLoop, serving.store);
}

/** On SIGTERM or SIGINT: stops what runs, closes the store, exits. */
function exitOnSignals(stop: () => Promise<void>, store: Store): void {
  const exit = async (signal: string) => {
    getLogger("runtime").info({ signal }, "stopping");
    await stop();
    await store.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void exit("SIGTERM"));
  process.once("SIGINT", () => void exit("SIGINT"));
}

function startCollectorLoop(): () => Promise<void> {
  return startCollecting(getRuntime());
}

/**
 * Starts a polling runtime's loop; a sharing collector also joins the collectors' group (its cycles poll no flow
 * until the first assignment). The returned stop waits for the running cycle, then leaves the group, so the shards
 * move to the others at once and never while this process still writes them.
 */
export function startCollecting(runtime: Runtime): () => Promise<void> {
  let stopped = false;
  const membership = runtime.sharding?.membership;
  let joined = false;
  if (membership) {
    void joinUntilStopped(membership, () => stopped).then((ok) => {
      joined = ok;
    });
  }
  runtime.collector.start();
  return async () => {
    stopped = true;
    await runtime.collector.stop();
    // A join still under way (the home cluster unreachable) is left to the process's exit.
    if (joined) await membership?.stop();
    runtime.alerts.stop();
  };
}

/**
 * Joins the collectors' group (true once joined), trying again while the home cluster cannot be reached; false when
 * stopped first or on a config error (a shard topic with another partition count).
 */
async function joinUntilStopped(membership: ShardMembership, isStopped: () => boolean): Promise<boolean> {
  const log = getLogger("runtime");
  while (!isStopped()) {
    try {
      await membership.start();
      log.info("joined the collectors' group");
      return true;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (err instanceof ConfigError) {
        log.error({ err: why }, "scaleOut: cannot join the collectors' group; this collector polls no flow");
        return false;
      }
      log.error({ err: why, retryMs: joinRetryMs }, "joining the collectors' group failed; trying again");
      await new Promise((resolve) => setTimeout(resolve, joinRetryMs));
    }
  }
  return false;
}

function startWebLoop(): () => Promise<void> {
  const published = holder.__gapwatchWebRuntime!.published;
  published.start();
  return () => published.stop();
}
