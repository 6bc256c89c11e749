import { flowPartitionKey, type Flow, type Snapshot } from "@/lib/collector/types";
import { ConnectorState } from "@/lib/connect/types";
import {
  countOf,
  formatDuration,
  listFreshFlowPartitions,
  namePartition,
  summarizeNames,
  type DetectorContext,
  type FlowPartitionView,
} from "./snapshot-views";
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
 *   a task not RUNNING) or its Connect cluster did not answer (a worker killed and restarting) does
 *   not count — the interval up to each cycle that sees it so: records that waited through a pause
 *   or a worker restart are not "not copied" the moment MM2 resumes (60-minute soak). Only that
 *   time is taken out — a connector whose status flickers for one cycle does not restart the clock;
 * - stalled when the counted time ≥ stallAfterMs, sourceLogEnd > the log end at that move (the
 *   source grew meanwhile) and data records are waiting (lag > 0: transaction markers do not count);
 * - not stalled when the source connector copying the partition (`sourceConnector`) is known and
 *   is not RUNNING or has a task that is not RUNNING (paused/stopped on purpose; failures are
 *   TASK_FAILED), or while its Connect cluster does not answer; a connector Gapwatch is not told
 *   about (no Connect configured, dedicated MM2) does not prevent the verdict.
 * stallAfterMs must exceed offset.flush.interval.ms: the position is only published that often.
 * One finding per flow, `TASK_STALLED|<flow>`, naming the stalled partitions.
 */
export function detectTaskStalls(
  ctx: DetectorContext,
  marks: Readonly<Record<string, PositionMark>>,
): { findings: Finding[]; marks: Record<string, PositionMark> } {
  const next = keepMarksOfKnownPartitions(ctx.current, marks);
  const stallsByFlow = new Map<Flow, Stall[]>();
  for (const view of listFreshFlowPartitions(ctx.current)) {
    const { mm2Position: position, sourceLogEnd: logEnd } = view.partition;
    if (position === null || logEnd === null) continue;
    const old = marks[view.key];
    // Records waiting = data records (lag), not offsets: an idle transactional partition ends
    // with a commit marker MM2 never copies, so its position stays one short of the log end forever.
    const waiting = view.partition.lag ?? 0n;
    // The clock runs only while records wait: a cycle with nothing to copy restarts it, so records
    // that arrive after an idle spell just as MM2 restarts are not "not copied for minutes" (soak).
    const keep = old !== undefined && old.position === position.toString() && waiting > 0n;
    const connector = view.partition.sourceConnector ?? view.flow.connectors.source;
    const running = isClockRunning(resolveSourceState(ctx.current, view.flow, connector));
    const mark: PositionMark = keep
      ? { ...old, notRunningMs: old.notRunningMs + (running ? 0 : Math.max(0, ctx.now - old.seenAt)), seenAt: ctx.now }
      : { position: position.toString(), movedAt: ctx.now, logEndAtMove: logEnd.toString(), notRunningMs: 0, seenAt: ctx.now };
    next[view.key] = mark;
    const stalledForMs = ctx.now - mark.movedAt - mark.notRunningMs;
    if (stalledForMs < ctx.thresholds.stallAfterMs || logEnd <= BigInt(mark.logEndAtMove) || waiting <= 0n) continue;
    stallsByFlow.set(view.flow, [...(stallsByFlow.get(view.flow) ?? []), { view, stalledForMs, pending: waiting }]);
  }
  const findings: Finding[] = [];
  for (const [flow, stalls] of stallsByFlow) {
    // Each partition is judged by the source connector that copies it (a flow can have several).
    const connectorOf = (s: Stall): string | null => s.view.partition.sourceConnector ?? flow.connectors.source;
    const running = stalls.filter((s) => isClockRunning(resolveSourceState(ctx.current, flow, connectorOf(s))));
    if (running[0] !== undefined) findings.push(createStallFinding(ctx, flow, running, connectorOf(running[0])));
  }
  return { findings, marks: next };
}

/** Marks of partitions still in the snapshot (stale flows keep theirs); vanished partitions are dropped. */
function keepMarksOfKnownPartitions(snapshot: Snapshot, marks: Readonly<Record<string, PositionMark>>): Record<string, PositionMark> {
  const known = new Set(snapshot.flows.flatMap((f) => f.partitions.map((p) => flowPartitionKey(f.id, p.topic, p.partition))));
  return Object.fromEntries(Object.entries(marks).filter(([key]) => known.has(key)));
}

/** Time counts, and a verdict is given, while the connector runs or Gapwatch is not told about it. */
function isClockRunning(state: SourceState): boolean {
  return state === "running" || state === "unknown";
}

function resolveSourceState(snapshot: Snapshot, flow: Flow, name: string | null): SourceState {
  if (name === null) return "unknown";
  const candidates = snapshot.connect.filter((c) => flow.connectors.connectCluster === null || c.name === flow.connectors.connectCluster);
  const connector = candidates.filter((c) => c.reachable).flatMap((c) => c.connectors).find((c) => c.name === name);
  if (connector === undefined) return candidates.some((c) => !c.reachable) ? "unreachable" : "unknown";
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
      stallAfterMs: ctx.thresholds.stallAfterMs,
    },
    observedAt: ctx.now,
  };
}
