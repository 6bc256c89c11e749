// The events the soak replays: benign ones production MM2 sees every week, and real faults whose
// alerts are expected. Each acts for real on the soak's sandbox and declares what it must or may raise.
import type { AlertRecord } from "@/lib/alerts/types";
import type { Snapshot } from "@/lib/collector/types";
import {
  alterMirrorSourceOffsets,
  type ConnectEndpoint,
  deleteConnector,
  getConnectors,
  getMirrorSourceOffsets,
  pauseConnector,
  putConnectorConfig,
  restartTask,
  resumeConnector,
  stopConnector,
} from "@/lib/connect";
import type { FindingTypeName, SeverityName } from "@/lib/detect/types";
import { killConnectWorker, restartConnectWorker } from "@/lib/sandbox/connect-control";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { connectorNames, type FlowClusters, sourceConnectorConfig, waitForConnectorsRunning } from "@/lib/sandbox/mm2-connectors";
import { sleep } from "@/lib/sandbox/processes";
import { formatRemoteTopicName } from "@/lib/sandbox/remote-topic";
import { runLag, runPurge, runRecover, runResetNone } from "@/lib/sandbox/scenarios";
import type { PurgeReport } from "@/lib/sandbox/scenarios/purge";
import { allTasks, waitForConnector } from "@/lib/sandbox/scenarios/connector-control";
import type { SandboxState } from "@/lib/sandbox/state";
import { fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { workloadGroups } from "@/lib/sandbox/workload";
import type { CycleWatch } from "./cycle-watch";
import type { EvidenceBound } from "./expectations";
import { applyTaskConfig, setTaskLogLevel } from "@/lib/sandbox/scenarios/task-config";
import { soakTopics, type SoakTraffic } from "./traffic";

/** What an event declares about one alert (the runner adds ids and the time window). */
export interface ExpectationSpec {
  type: FindingTypeName;
  severity: SeverityName | null;
  required: boolean;
  topic?: string;
  partition?: number;
  group?: string;
  exact?: Record<string, string>;
  contains?: Record<string, string>;
  bounds?: Record<string, EvidenceBound>;
  reason: string;
}

export interface SoakContext {
  state: SandboxState;
  endpoint: ConnectEndpoint;
  flowId: string;
  flowClusters: FlowClusters;
  stallAfterMs: number;
  traffic: SoakTraffic;
  watch: CycleWatch;
  expect(spec: ExpectationSpec): void;
  /** Whether an alert of this type that satisfies `test` is firing now (lets a fault last until it is seen). */
  isFiring(type: FindingTypeName, test: (alert: AlertRecord) => boolean): boolean;
}

/** What an event did, for the report; `settle` adds a condition to the flow being settled. */
export interface EventOutcome {
  details: Record<string, unknown>;
  settle?: (s: Snapshot) => boolean;
}

export interface SoakEvent {
  kind: string;
  /** Real fault (alerts expected) rather than a benign event. */
  fault: boolean;
  /** False when the event cannot run now (e.g. the topic reached its partition cap). */
  canRun(ctx: SoakContext): boolean;
  run(ctx: SoakContext): Promise<EventOutcome>;
}

const names = connectorNames("east", "west");
const key = (topic: string, partition: number) => `${topic}/${partition}`;
const maxGrowPartitions = 6;
/** CHECKPOINT_STALE's threshold for groups MM2 already checkpoints, with the sandbox's 5 s emit interval. */
const checkpointStaleMs = 60_000;
/**
 * Faults last until their alert fires, and at least this much longer than their threshold; at
 * most `faultMaxExtraMs` longer (the 5 s poll and a loaded CI machine must not turn into a miss).
 */
const stallMarginMs = 30_000;
const faultMaxExtraMs = 120_000;

/** Keeps doing `tick` until `seen()` holds and `minMs` passed, or `maxMs` passed; returns the time taken. */
async function lastUntilSeen(seen: () => boolean, minMs: number, maxMs: number, tick: () => Promise<void>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < maxMs && (Date.now() - started < minMs || !seen())) await tick();
  return Date.now() - started;
}

/** MM2's committed positions (offset + 1) per source partition, from Connect's offsets API. */
async function readCommittedPositions(ctx: SoakContext): Promise<Map<string, bigint>> {
  const offsets = await getMirrorSourceOffsets(ctx.endpoint, names.source);
  return new Map(offsets.filter((o) => o.cluster === "east").map((o) => [key(o.topic, o.partition), o.offset + 1n]));
}

/** Source log ends of every partition of the flow, read with one kafkajs admin client. */
async function readFlowLogEnds(ctx: SoakContext): Promise<Map<string, bigint>> {
  const topics = [...new Set(ctx.watch.latest()?.flows.find((f) => f.id === ctx.flowId)?.partitions.map((p) => p.topic) ?? [])];
  const admin = sandboxKafka(ctx.flowClusters.source.bootstrap, "gapwatch-soak-admin").admin();
  await admin.connect();
  try {
    const ends = new Map<string, bigint>();
    for (const topic of topics) {
      for (const o of await admin.fetchTopicOffsets(topic)) ends.set(key(topic, o.partition), BigInt(o.high));
    }
    return ends;
  } finally {
    await admin.disconnect();
  }
}

/**
 * MM2 stopped copying for a while (connector paused, stopped, deleted or its worker down): lag in
 * time and the retention forecast of the short-retention topic may fire, truthfully.
 */
function allowStandstill(ctx: SoakContext, why: string): void {
  ctx.expect({ type: "REPLICATION_LAG", severity: "warning", required: false, reason: `${why}: records and heartbeats wait` });
  ctx.expect({ type: "RETENTION_RISK", severity: "warning", required: false, topic: soakTopics.retention.topic, reason: `${why}: the oldest unreplicated record ages` });
}

/**
 * MM2 restarted (worker, task or connector): it resumes at Connect's committed position, so it may
 * copy again what it copied after the last flush. Per partition the duplicates start at or after
 * the committed position before the event. No upper bound: the rebalance that follows a worker's
 * return can restart the task once more, under load a minute later, and re-copy records produced
 * after the event (60-minute soak, seed 2027: 1419–1430 re-copied with the log end at 1330 when the
 * event ended).
 */
function allowRedelivery(ctx: SoakContext, before: ReadonlyMap<string, bigint>, ends: ReadonlyMap<string, bigint>, why: string): void {
  for (const partitionKey of ends.keys()) {
    const slash = partitionKey.lastIndexOf("/");
    const [topic, partition] = [partitionKey.slice(0, slash), Number(partitionKey.slice(slash + 1))];
    ctx.expect({
      type: "MM2_REDELIVERY",
      severity: "info",
      required: false,
      topic,
      partition,
      bounds: { firstDuplicateOffset: { min: (before.get(partitionKey) ?? 0n).toString() } },
      reason: `${why}: at-least-once redelivery since the last offset flush`,
    });
  }
}

/** Produces `count` records with unique values to one partition; returns the last record's value. */
async function produce(ctx: SoakContext, topic: string, partition: number, count: number, label: string): Promise<string> {
  const producer = sandboxKafka(ctx.flowClusters.source.bootstrap, "gapwatch-soak-events").producer();
  await producer.connect();
  try {
    const at = Date.now();
    const values = Array.from({ length: count }, (_, seq) => JSON.stringify({ topic, partition, seq, run: label, at }));
    await producer.send({ topic, acks: -1, messages: values.map((value) => ({ partition, value })) });
    return values.at(-1)!;
  } finally {
    await producer.disconnect();
  }
}

/**
 * Produces `count` records to a partition only the event writes, and waits until MM2 copied the
 * last of them: the target's last record carries its (unique) value. Log ends cannot be compared
 * across the clusters: after an earlier purge of the partition the source's offsets run ahead of
 * the target's by the deleted records (60-minute soak: every second purge of a partition timed out).
 */
async function produceAndWaitCopied(ctx: SoakContext, topic: string, partition: number, count: number, label: string): Promise<void> {
  const west = ctx.flowClusters.target.bootstrap;
  const remote = formatRemoteTopicName(ctx.flowClusters.source.alias, topic);
  const targetEnd = async () => (await fetchLogEnds(west, remote)).get(partition)?.high ?? 0n;
  const before = await targetEnd();
  const last = await produce(ctx, topic, partition, count, label);
  await waitUntil(async () => {
    const end = await targetEnd();
    if (end < before + BigInt(count)) return false;
    const [record] = await readPartition(ctx.state, west, remote, partition, end - 1n, 1);
    return record?.value === last;
  }, `${topic}/${partition} copied (its last record on ${remote})`, 90_000);
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(1000);
  }
}

const inFlow = (s: Snapshot, flowId: string, topic: string) => s.flows.find((f) => f.id === flowId)?.partitions.some((p) => p.topic === topic) ?? false;

const workerKill: SoakEvent = {
  kind: "worker-sigkill",
  fault: false,
  canRun: () => true,
  async run(ctx) {
    const before = await readCommittedPositions(ctx);
    const pid = await killConnectWorker();
    const ends = await readFlowLogEnds(ctx);
    allowRedelivery(ctx, before, ends, "Connect worker killed with SIGKILL");
    allowStandstill(ctx, "Connect worker down");
    // The checkpoint connector dies with the worker: a restart slower than the threshold (60 s here,
    // 77 s seen under load) leaves checkpoints owed, truthfully.
    ctx.expect({ type: "CHECKPOINT_STALE", severity: "warning", required: false, reason: "Connect worker down: MM2's checkpoint task with it" });
    await sleep(3000);
    const worker = await restartConnectWorker(ctx.state);
    await waitForConnectorsRunning(ctx.endpoint, Object.values(names), 180_000, [names.checkpoint]);
    return { details: { killedPid: pid, restartedPid: worker.process.pid } };
  },
};

const taskRestart: SoakEvent = {
  kind: "task-restart",
  fault: false,
  canRun: () => true,
  async run(ctx) {
    const before = await readCommittedPositions(ctx);
    await restartTask(ctx.endpoint, names.source, 0);
    await sleep(3000);
    await waitForConnector(ctx.endpoint, names.source, allTasks("RUNNING"), "RUNNING", 90_000);
    allowRedelivery(ctx, before, await readFlowLogEnds(ctx), "source task restarted");
    return { details: { connector: names.source, task: 0 } };
  },
};

const connectorRecreate: SoakEvent = {
  kind: "connector-recreate",
  fault: false,
  canRun: () => true,
  async run(ctx) {
    const before = await readCommittedPositions(ctx);
    const config = (await getConnectors(ctx.endpoint)).find((c) => c.name === names.source)?.config;
    if (config === undefined) throw new Error(`connector ${names.source} not found`);
    allowStandstill(ctx, "source connector deleted");
    await deleteConnector(ctx.endpoint, names.source);
    await sleep(8000);
    allowRedelivery(ctx, before, await readFlowLogEnds(ctx), "source connector deleted and re-created");
    await putConnectorConfig(ctx.endpoint, names.source, config);
    await waitForConnectorsRunning(ctx.endpoint, [names.source], 120_000);
    return { details: { connector: names.source, deletedForMs: 8000 } };
  },
};

const pauseLong: SoakEvent = {
  kind: "pause-2x-stall",
  fault: false,
  canRun: () => true,
  async run(ctx) {
    const seconds = (2 * ctx.stallAfterMs) / 1000;
    // Paused is a state, not a stall: no TASK_STALLED. MM2 really stands still for 60 s, longer
    // than lagSeconds and retention − horizon (45 s), so both must fire.
    ctx.expect({ type: "REPLICATION_LAG", severity: "warning", required: true, reason: `source connector paused ${seconds} s > lagSeconds` });
    for (let partition = 0; partition < soakTopics.retention.partitions; partition++) {
      ctx.expect({ type: "RETENTION_RISK", severity: "warning", required: true, topic: soakTopics.retention.topic, partition, reason: `oldest unreplicated record ${seconds} s old, deletable within the horizon` });
    }
    await runLag(ctx.state, { seconds });
    return { details: { pausedSeconds: seconds } };
  },
};

const partitionIncrease: SoakEvent = {
  kind: "partition-increase",
  fault: false,
  canRun: (ctx) => (ctx.traffic.partitions.get(soakTopics.grow.topic) ?? 0) < maxGrowPartitions,
  async run(ctx) {
    const { topic } = soakTopics.grow;
    const count = (ctx.traffic.partitions.get(topic) ?? soakTopics.grow.partitions) + 1;
    const admin = sandboxKafka(ctx.flowClusters.source.bootstrap, "gapwatch-soak-admin").admin();
    await admin.connect();
    try {
      await admin.createPartitions({ topicPartitions: [{ topic, count }] });
    } finally {
      await admin.disconnect();
    }
    ctx.traffic.partitions.set(topic, count);
    const added = count - 1;
    const copied = (s: Snapshot) => (s.flows.find((f) => f.id === ctx.flowId)?.partitions.find((p) => p.topic === topic && p.partition === added)?.mm2Position ?? 0n) > 0n;
    return { details: { topic, partitions: count }, settle: copied };
  },
};

const filterNarrow: SoakEvent = {
  kind: "topic-filter-narrowed",
  fault: false,
  canRun: () => true,
  async run(ctx) {
    const { topic } = soakTopics.filter;
    const before = await readCommittedPositions(ctx);
    const exclude = sourceConnectorConfig(ctx.flowClusters)["topics.exclude"];
    ctx.expect({ type: "TOPIC_LEFT_FLOW", severity: "info", required: true, topic, reason: `${topic} added to topics.exclude` });
    await putConnectorConfig(ctx.endpoint, names.source, sourceConnectorConfig(ctx.flowClusters, { "topics.exclude": `${exclude}, ${topic}` }));
    await waitForConnector(ctx.endpoint, names.source, allTasks("RUNNING"), "RUNNING", 90_000);
    await ctx.watch.waitFor((s) => !inFlow(s, ctx.flowId, topic), `${topic} to leave the flow`, 90_000);
    await sleep(10_000);
    await putConnectorConfig(ctx.endpoint, names.source, sourceConnectorConfig(ctx.flowClusters));
    await waitForConnector(ctx.endpoint, names.source, allTasks("RUNNING"), "RUNNING", 90_000);
    // Reconfiguring restarts the task: what it copied since the last flush may come again.
    allowRedelivery(ctx, before, await readFlowLogEnds(ctx), "source connector reconfigured");
    return { details: { topic }, settle: (s) => inFlow(s, ctx.flowId, topic) };
  },
};

let purges = 0;
const purge: SoakEvent = {
  kind: "purge-while-paused",
  fault: true,
  canRun: () => true,
  async run(ctx) {
    const { topic } = soakTopics.purge;
    const partition = purges++ % soakTopics.purge.partitions;
    // Records MM2 has fully copied first (runPurge finds MM2's real position among them), so
    // nothing is in flight when it pauses and the lost range is exact.
    await produceAndWaitCopied(ctx, topic, partition, 50, `soak-purge-${purges}`);
    allowStandstill(ctx, "source connector paused for the purge");
    const report = await runPurge(ctx.state, { topic, partition, records: 300 });
    expectLoss(ctx, report, "unreplicated records deleted with DeleteRecords while MM2 was paused");
    return { details: { ...report } };
  },
};

function expectLoss(ctx: SoakContext, report: PurgeReport, reason: string): void {
  const { topic, partition, firstLostOffset, lastLostOffset, lostCount } = report;
  ctx.expect({ type: "DATA_LOSS", severity: "critical", required: true, topic, partition, exact: { firstLostOffset, lastLostOffset, lostCount }, reason });
}

/**
 * A real stall: MM2's consumer set to auto.offset.reset=none, then unreplicated records of the
 * stall topic purged: the task stays RUNNING and copies nothing from that partition while a producer
 * keeps writing to it, for longer than the stall threshold; then MM2's normal config is restored and
 * it skips to the log start (the loss was already reported). Every other partition of the task has
 * a committed MM2 offset (main.ts seeds the soak's event-only topics): with `none`, one partition
 * without one makes every poll throw NoOffsetForPartitionException and stalls the whole task.
 */
let stalls = 0;
const resetKey = "consumer.auto.offset.reset";
const stall: SoakEvent = {
  kind: "stall-reset-none",
  fault: true,
  canRun: () => true,
  async run(ctx) {
    const { topic } = soakTopics.stall;
    const partition = 0;
    const label = `soak-stall-${++stalls}`;
    await produceAndWaitCopied(ctx, topic, partition, 50, label);
    const before = await readCommittedPositions(ctx);
    allowStandstill(ctx, "source connector reconfigured and paused for the purge; the stalled partition's records wait");
    const logLevel = await setTaskLogLevel(ctx.endpoint, "ERROR");
    try {
      await runResetNone(ctx.state);
      await applyTaskConfig(ctx.endpoint, names.source, resetKey, "none");
      const report = await runPurge(ctx.state, { topic, partition, records: 300 });
      expectLoss(ctx, report, "unreplicated records deleted while MM2 was paused (auto.offset.reset=none)");
      ctx.expect({
        type: "TASK_STALLED",
        severity: "critical",
        required: true,
        contains: { partitions: key(topic, partition) },
        reason: `MM2 RUNNING with auto.offset.reset=none below the log start of ${key(topic, partition)} while records keep arriving`,
      });
      // Records keep arriving (a stall is judged only while the source grows), past the threshold.
      const stalled = () => ctx.isFiring("TASK_STALLED", (a) => String(a.evidence.partitions).split(",").includes(key(topic, partition)));
      let n = 0;
      const stalledMs = await lastUntilSeen(stalled, ctx.stallAfterMs + stallMarginMs / 2, ctx.stallAfterMs + faultMaxExtraMs, async () => {
        await produce(ctx, topic, partition, 5, `${label}-waiting-${n++}`);
        await sleep(5000);
      });
      await runRecover(ctx.state);
      await applyTaskConfig(ctx.endpoint, names.source, resetKey, null);
      allowRedelivery(ctx, before, await readFlowLogEnds(ctx), "source task restarted twice (reset=none, then restored)");
      return { details: { ...report, stalledMs } };
    } finally {
      // Also when the event failed half-way (restoreMm2 then puts MM2's normal config back).
      await setTaskLogLevel(ctx.endpoint, logLevel);
    }
  },
};

/**
 * A group whose checkpoints stop: the checkpoint connector paused while the workload's groups keep
 * committing. CHECKPOINT_STALE's threshold for a group MM2 already checkpoints is
 * max(3 × emit.checkpoints.interval (5 s in the sandbox), 60 s) (lib/detect/translation-detectors.ts).
 */
const checkpointsPaused: SoakEvent = {
  kind: "checkpoints-paused",
  fault: true,
  canRun: () => true,
  async run(ctx) {
    const group = workloadGroups.fast;
    ctx.expect({ type: "CHECKPOINT_STALE", severity: "warning", required: true, group, reason: `checkpoint connector paused past the ${checkpointStaleMs / 1000} s threshold while ${group} commits` });
    ctx.expect({ type: "CHECKPOINT_STALE", severity: "warning", required: false, reason: "checkpoint connector paused: every committing group is owed checkpoints" });
    ctx.expect({ type: "TRANSLATION_ERROR", severity: "warning", required: false, reason: "checkpoint connector paused: failover would replay everything committed since the last checkpoint" });
    await pauseConnector(ctx.endpoint, names.checkpoint);
    await waitForConnector(ctx.endpoint, names.checkpoint, allTasks("PAUSED"), "PAUSED", 60_000);
    const stale = () => ctx.isFiring("CHECKPOINT_STALE", (a) => a.group === group);
    const pausedMs = await lastUntilSeen(stale, checkpointStaleMs + stallMarginMs / 2, checkpointStaleMs + faultMaxExtraMs, () => sleep(1000));
    await resumeConnector(ctx.endpoint, names.checkpoint);
    await waitForConnector(ctx.endpoint, names.checkpoint, allTasks("RUNNING"), "RUNNING", 60_000);
    return { details: { connector: names.checkpoint, pausedMs } };
  },
};

const offsetsBack: SoakEvent = {
  kind: "offsets-moved-back",
  fault: true,
  canRun: () => true,
  async run(ctx) {
    const { topic } = soakTopics.moved;
    const partition = 0;
    await produce(ctx, topic, partition, 100, "soak-moved");
    const end = (await fetchLogEnds(ctx.flowClusters.source.bootstrap, topic)).get(partition)!.high;
    // As in production, Gapwatch has seen MM2's committed position before the operator changes it.
    const committedSeen = (s: Snapshot) => s.flows.find((f) => f.id === ctx.flowId)?.partitions.find((p) => p.topic === topic && p.partition === partition)?.committedPosition === end;
    await ctx.watch.waitFor(committedSeen, `Gapwatch to see MM2's committed position ${end} of ${topic}/${partition}`, 90_000);
    const before = await readCommittedPositions(ctx);
    allowStandstill(ctx, "source connector stopped for the offsets change");
    await stopConnector(ctx.endpoint, names.source);
    await waitForConnector(ctx.endpoint, names.source, (c) => c.state === "STOPPED", "STOPPED");
    const moved = 50n;
    await alterMirrorSourceOffsets(ctx.endpoint, names.source, [{ cluster: "east", topic, partition, offset: end - moved - 1n }]);
    ctx.expect({
      type: "MM2_POSITION_MOVED",
      severity: "warning",
      required: true,
      topic,
      partition,
      exact: { direction: "back", firstAffectedOffset: (end - moved).toString(), lastAffectedOffset: (end - 1n).toString(), affectedCount: moved.toString() },
      reason: "Connect's offsets PATCHed back by 50 while the connector was STOPPED",
    });
    // Let Gapwatch see the stopped connector's new offsets before MM2 moves again.
    await ctx.watch.waitFor(() => true, "a cycle after the offsets change", 60_000);
    const ends = await readFlowLogEnds(ctx);
    // The re-copied range on this partition is exactly the one moved back.
    allowRedelivery(ctx, new Map([...before, [key(topic, partition), end - moved]]), ends, "connector stopped and resumed after its offsets were moved");
    await resumeConnector(ctx.endpoint, names.source);
    await waitForConnector(ctx.endpoint, names.source, allTasks("RUNNING"), "RUNNING", 90_000);
    return { details: { topic, partition, logEnd: end.toString(), newPosition: (end - moved).toString() } };
  },
};

/** Every scheduled event kind (the transactional producer's idle periods run in the background). */
export const soakEvents: readonly SoakEvent[] = [workerKill, taskRestart, connectorRecreate, pauseLong, partitionIncrease, filterNarrow, purge, offsetsBack, stall, checkpointsPaused];

/**
 * `--ci` runs these first (in seeded order), so a 5-minute run surely exercises TASK_STALLED (a real
 * stall), CHECKPOINT_STALE (checkpoints stop) and RETENTION_RISK, next to their look-alikes: a pause
 * past the stall threshold, the transactional producer's idle spells and a new group (warm-up).
 */
export const ciCoverageEvents: readonly SoakEvent[] = [stall, checkpointsPaused, pauseLong];

/**
 * Puts MM2 back to normal after an event failed half-way: a Connect worker running, the source
 * connector with its normal config, resumed. Best effort; errors are returned, not thrown.
 */
export async function restoreMm2(ctx: SoakContext, workerAlive: boolean): Promise<string[]> {
  const errors: string[] = [];
  const attempt = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (err) {
      errors.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  if (!workerAlive) await attempt("restarting the Connect worker", () => restartConnectWorker(ctx.state));
  await attempt("restoring the source connector", () => putConnectorConfig(ctx.endpoint, names.source, sourceConnectorConfig(ctx.flowClusters)));
  await attempt("resuming the source connector", () => resumeConnector(ctx.endpoint, names.source));
  await attempt("waiting for MM2", () => waitForConnectorsRunning(ctx.endpoint, Object.values(names), 120_000, [names.checkpoint]));
  return errors;
}
