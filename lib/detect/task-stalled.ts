import { findConnectCluster } from "@/lib/collector/connector-clusters";
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readFlowPartition, readSourceConnector } from "@/lib/collector/flow-rows";
import type { DedicatedModeStatus, Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import { ConnectorState } from "@/lib/connect/types";
import {
  countOf,
  formatDuration,
  isFlowFresh,
  namePartition,
  summarizeNames,
  type DetectorContext,
  type FlowPartitionView,
} from "./snapshot-views";
import type { MarkTableBuilder } from "./mark-columns";
import { createStallMarksBuilder, nameStallColumns, readStallTable, type StallColumns } from "./stall-marks";
import { FindingType, Severity, type Finding, type PositionMark } from "./types";

/**
 * The source connector's state as far as a stall verdict is concerned: "unknown" when Gapwatch is
 * not told about it (no Connect configured, dedicated MM2), "unreachable" when the Connect cluster
 * that should report it does not answer (a worker killed or restarting: MM2 copies nothing then).
 */
type SourceState = "running" | "unknown" | "unreachable" | "not-running";

interface Stall {
  view: FlowPartitionView;
  stalledForMs: number;
  pending: bigint;
}

/**
 * TASK_STALLED — MM2's tasks are RUNNING but a partition's position does not move while its
 * source keeps growing. This is what auto.offset.reset=none produces after retention deleted the
 * records MM2 needed: the task logs a WARN and stays RUNNING forever.
 *
 * LOGIC — per fresh flow partition with known mm2Position and sourceLogEnd:
 * - remember when the position last changed ("moved at", and the source log end then), or when
 *   nothing was waiting (lag 0: the clock restarts); a partition seen for the first time, or whose
 *   data is stale, starts or keeps its mark;
 * - the time since then during which the source connector was seen not running (paused, stopped,
 *   a task not RUNNING, deleted) or its Connect cluster did not answer (a worker killed and
 *   restarting) does not count — the interval up to each cycle that sees it so, also for a
 *   partition whose own data is unknown in that cycle: records that waited through a pause
 *   or a worker restart are not "not copied" the moment MM2 resumes (60-minute soak). Only that
 *   time is taken out — a connector whose status flickers for one cycle does not restart the clock;
 * - stalled when the counted time ≥ stallAfterMs, sourceLogEnd > the log end at that move (the
 *   source grew meanwhile) and data records are waiting (lag > 0: transaction markers do not count);
 * - not stalled when the source connector copying the partition (`sourceConnector`) is known and
 *   is not RUNNING or has a task that is not RUNNING (paused/stopped on purpose; failures are
 *   TASK_FAILED), or while its Connect cluster does not answer; a connector Gapwatch is not told
 *   about (no Connect configured) does not prevent the verdict. Dedicated-mode MM2: the same, from
 *   its status topic (resolveDedicatedSourceState).
 * stallAfterMs must exceed offset.flush.interval.ms: the position is only published that often; where it comes
 * from Connect alone the threshold is at least twice the Connect cluster's configured flush interval (resolveStallAfterMs).
 * One finding per flow, `TASK_STALLED|<flow>`, naming the stalled partitions.
 */
export function detectTaskStalls(
  ctx: DetectorContext,
  marks: Readonly<Record<string, PositionMark>>,
): { findings: Finding[]; marks: Record<string, PositionMark> } {
  const stateOf = createSourceStateLookup(ctx.current);
  const freshFlows = new Set(ctx.current.flows.filter((flow) => isFlowFresh(ctx.current, flow)));
  const before = nameStallColumns(readStallTable(marks));
  const next = createStallMarksBuilder(marks, ctx.now);
  const now = ctx.now;
  const stallsByFlow = new Map<Flow, Stall[]>();
  // One pass over every partition: the marks of partitions still in the snapshot are advanced
  // (vanished partitions are dropped), then the fresh ones are judged (listFreshFlowPartitions order).
  // Offsets are read from the flow's columns (flow-columns.ts: numbers, NaN for unknown, exact below 2^53), as the
  // marks are (stall-marks.ts); the partition object is read for its strings, and a view is made only for a stall.
  for (const flow of ctx.current.flows) {
    const columns = readFlowColumns(flow);
    const fresh = freshFlows.has(flow);
    // A slot's columns hold the last of a partition listed twice: such a flow's offsets are read from the objects.
    const exact = !columns.duplicates;
    for (let i = 0, n = countFlowPartitions(flow); i < n; i++) {
      const at = columns.slotAt[i]!;
      const key = columns.keys[at]!;
      const slot = next.slotOfKeyAt(columns.keys, at);
      const had = before.present[slot] === 1;
      // The partition object is read only where the columns cannot answer (a partition listed twice), for a mark
      // that is kept (its connector's state) and for a stall: a partition that moved is judged on its numbers.
      const position = exact ? columns.mm2Position[at]! : toNumber(flow.partitions[i]!.mm2Position);
      const logEnd = exact ? columns.sourceLogEnd[at]! : toNumber(flow.partitions[i]!.sourceLogEnd);
      // Without duplicates a slot's known position is its own exactly when its data is known (flow-columns.ts).
      const known = exact ? columns.knownPositionOf[at] === i : flow.partitions[i]!.unknown === null;
      const judged = fresh && known && !Number.isNaN(position) && !Number.isNaN(logEnd);
      if (!judged) {
        const running = had && isClockRunning(stateOf(flow, readSourceConnector(flow, i) ?? flow.connectors.source));
        if (had) putAdvancedMark(next, before, slot, running, now);
        continue;
      }
      // Records waiting = data records (lag), not offsets: an idle transactional partition ends
      // with a commit marker MM2 never copies, so its position stays one short of the log end forever.
      // NaN (lag unknown) counts as none waiting.
      const waiting = exact ? columns.lag[at]! : toNumber(flow.partitions[i]!.lag);
      // The clock runs only while records wait: a cycle with nothing to copy restarts it, so records
      // that arrive after an idle spell just as MM2 restarts are not "not copied for minutes" (soak).
      const keep = had && waiting > 0 && before.position[slot] === position;
      let movedAt = now;
      let notRunningMs = 0;
      let logEndAtMove = logEnd;
      if (keep) {
        const running = isClockRunning(stateOf(flow, readSourceConnector(flow, i) ?? flow.connectors.source));
        [movedAt, notRunningMs] = putAdvancedMark(next, before, slot, running, now);
        logEndAtMove = before.logEndAtMove[slot]!;
      } else {
        // A mark made now is not stored (memory-persistence.ts): a change only where the old one was.
        next.put(slot, had && isStoredMark(before, slot), position, now, logEndAtMove, 0, now);
      }
      const stalledForMs = now - movedAt - notRunningMs;
      // The numbers first: resolveStallAfterMs is never below stallAfterMs.
      if (!(waiting > 0) || logEnd <= logEndAtMove || stalledForMs < ctx.thresholds.stallAfterMs) continue;
      const partition = readFlowPartition(flow, i);
      if (stalledForMs < resolveStallAfterMs(ctx, flow, partition)) continue;
      const stall: Stall = { view: { key, flow, partition, slot: at }, stalledForMs, pending: partition.lag! };
      const stalls = stallsByFlow.get(flow);
      if (stalls === undefined) stallsByFlow.set(flow, [stall]);
      else stalls.push(stall);
    }
  }
  const findings: Finding[] = [];
  for (const [flow, stalls] of stallsByFlow) {
    const running = stalls.filter((s) => isClockRunning(stateOf(flow, connectorOf(flow, s.view.partition))));
    if (running[0] !== undefined) findings.push(createStallFinding(ctx, flow, running, connectorOf(flow, running[0].view.partition)));
  }
  return { findings, marks: next.finish() };
}

/**
 * How long a partition's position must stand still: stallAfterMs, and where the position comes from Connect alone
 * (no offset sync proves a newer one) at least twice the Connect cluster's offset.flush.interval.ms — MM2's position
 * is published only at each flush (WorkerSourceTask commits offsets every offset.flush.interval.ms), so one slow
 * flush must not read as a stall.
 */
function resolveStallAfterMs(ctx: DetectorContext, flow: Flow, partition: FlowPartition): number {
  if (partition.positionSource !== "committed") return ctx.thresholds.stallAfterMs;
  const connectCluster = findConnectCluster(flow.connectors, connectorOf(flow, partition));
  const flush = ctx.current.connect.find((c) => c.name === connectCluster)?.offsetFlushIntervalMs;
  return flush === undefined ? ctx.thresholds.stallAfterMs : Math.max(ctx.thresholds.stallAfterMs, 2 * flush);
}

/**
 * Puts the mark at `slot` one cycle on: the interval since it was last seen is taken out when the connector copying
 * the partition is not running now (`running` false). This covers every partition, also one whose data is stale or
 * unknown this cycle: a position unreadable while the worker was down (soak-tx/1 in the 60-minute soak, seed 2028)
 * otherwise came back after the restart with the whole outage counted as stalled time. It is stored as the old one
 * was (seenAt is not stored) unless its not-running time grew or the old one was not stored (made in the cycle it
 * was last seen). Returns the mark's movedAt and not-running time.
 */
function putAdvancedMark(next: MarkTableBuilder<PositionMark>, before: StallColumns, slot: number, running: boolean, now: number): [number, number] {
  const was = before.notRunningMs[slot]!;
  const notRunningMs = was + (running ? 0 : Math.max(0, now - before.seenAt[slot]!));
  const movedAt = before.movedAt[slot]!;
  next.put(slot, notRunningMs !== was || !isStoredMark(before, slot), before.position[slot]!, movedAt, before.logEndAtMove[slot]!, notRunningMs, now);
  return [movedAt, notRunningMs];
}

/** Whether the persister stored the mark in the cycle it was last seen: not when it was made in that cycle. */
function isStoredMark(table: StallColumns, slot: number): boolean {
  return table.movedAt[slot] !== table.seenAt[slot];
}

/** A nullable offset as a number (NaN: null). */
function toNumber(value: bigint | null): number {
  return value === null ? Number.NaN : Number(value);
}

/** Each partition is judged by the source connector that copies it (a flow can have several). */
function connectorOf(flow: Flow, partition: FlowPartition): string | null {
  return partition.sourceConnector ?? flow.connectors.source;
}

/** Time counts, and a verdict is given, while the connector runs or Gapwatch is not told about it. */
function isClockRunning(state: SourceState): boolean {
  return state === "running" || state === "unknown";
}

type SourceStateLookup = (flow: Flow, connector: string | null) => SourceState;

/** Resolves each flow's connector once per cycle (100k partitions share a handful of connectors). */
function createSourceStateLookup(snapshot: Snapshot): SourceStateLookup {
  const cache = new Map<string, SourceState>();
  // The last question and answer: a flow's partitions ask about the same connector one after another, and a key
  // made per question was a string per partition and cycle.
  let lastFlow: Flow | undefined;
  let lastConnector: string | null = null;
  let lastState: SourceState = "unknown";
  return (flow, connector) => {
    if (flow === lastFlow && connector === lastConnector) return lastState;
    const key = `${flow.id}|${connector ?? ""}`;
    let state = cache.get(key);
    if (state === undefined) {
      state = resolveSourceState(snapshot, flow, connector);
      cache.set(key, state);
    }
    lastFlow = flow;
    lastConnector = connector;
    lastState = state;
    return state;
  };
}

/**
 * A connector named by the flow but absent from a Connect cluster that answered was deleted (or is
 * being re-created): MM2 copies nothing without it, as when paused.
 */
function resolveSourceState(snapshot: Snapshot, flow: Flow, name: string | null): SourceState {
  if (flow.dedicatedStatus !== undefined) return resolveDedicatedSourceState(flow.dedicatedStatus);
  if (name === null) return "unknown";
  const connectCluster = findConnectCluster(flow.connectors, name);
  const candidates = snapshot.connect.filter((c) => connectCluster === null || c.name === connectCluster);
  const connector = candidates.filter((c) => c.reachable).flatMap((c) => c.connectors).find((c) => c.name === name);
  if (connector === undefined) {
    if (candidates.some((c) => !c.reachable)) return "unreachable";
    return candidates.length > 0 ? "not-running" : "unknown";
  }
  const running = connector.state === ConnectorState.RUNNING && connector.tasks.every((t) => t.state === ConnectorState.RUNNING);
  return running ? "running" : "not-running";
}

/**
 * Dedicated-mode MM2: its MirrorSourceConnector (named by class) as `mm2-status.<source>.internal`
 * says — "unreachable" while that topic was not read completely this cycle (no verdict, the clock
 * stops), "not-running" without a status yet (MM2 starting) or not all RUNNING (a graceful stop
 * writes UNASSIGNED). A dedicated MM2 killed with SIGKILL leaves RUNNING behind: its stall is real.
 */
function resolveDedicatedSourceState(status: DedicatedModeStatus): SourceState {
  if (status.error !== null) return "unreachable";
  const connector = status.connectors.find((c) => c.name === "MirrorSourceConnector");
  if (connector === undefined) return "not-running";
  const running = connector.state === ConnectorState.RUNNING && connector.tasks.every((t) => t.state === ConnectorState.RUNNING);
  return running ? "running" : "not-running";
}

function createStallFinding(ctx: DetectorContext, flow: Flow, stalls: Stall[], connector: string | null): Finding {
  const names = stalls.map((s) => namePartition(s.view.partition.topic, s.view.partition.partition));
  const shown = summarizeNames(names);
  const longest = Math.max(...stalls.map((s) => s.stalledForMs));
  const pending = stalls.reduce((sum, s) => sum + s.pending, 0n);
  const single = stalls.length === 1 ? stalls[0]?.view.partition : undefined;
  return {
    key: `${FindingType.TASK_STALLED}|${flow.id}`,
    type: FindingType.TASK_STALLED,
    severity: Severity.CRITICAL,
    flow: flow.id,
    cluster: flow.source,
    ...(single === undefined ? {} : { topic: single.topic, partition: single.partition }),
    summary:
      `MM2 (${flow.id}) is RUNNING but has not copied anything from ${shown} for ${formatDuration(longest)} ` +
      `while ${countOf(pending, "record")} wait (auto.offset.reset=none after deleted records?)`,
    evidence: {
      connector,
      stalledPartitions: stalls.length,
      partitions: names.join(","),
      stalledForMs: longest,
      pendingRecords: pending.toString(),
      stallAfterMs: Math.max(...stalls.map((s) => resolveStallAfterMs(ctx, flow, s.view.partition))),
    },
    observedAt: ctx.now,
  };
}
