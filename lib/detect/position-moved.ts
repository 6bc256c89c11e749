import { derivePosition } from "@/lib/collector/flow-builder";
import { FlowFlag, type FlowColumns, readFlowColumns } from "@/lib/collector/flow-columns";
import { countFlowPartitions, readFlowPartition, readPartitionTopic, readSourceConnector } from "@/lib/collector/flow-rows";
import type { Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import { ConnectorState } from "@/lib/connect/types";
import type { EventCandidate, OffsetRange } from "./events";
import { listUpstreamGaps } from "@/lib/mm2/exact-mapping";
import {
  forEachJudged,
  formatCount,
  formatRange,
  hasNewSyncStep,
  isSourceCompacted,
  isFlowFresh,
  namePartition,
  StepKind,
  type DetectorContext,
  type FlowPartitionView,
  type JudgedFlow,
} from "./snapshot-views";
import {
  type CommittedColumns,
  createCommittedMarksBuilder,
  type CommittedValues,
  isRoutineAdvance as isCommittedAdvance,
  nameCommittedColumns,
  putCommittedMark,
  putCommittedNumbers,
  readCommittedTable,
  readCommittedValues,
} from "./committed-marks";
import type { MarkTable, MarkTableBuilder } from "./mark-columns";
import { isCopierChangeSkip } from "./copier-changed";
import { findTruncation } from "./truncation-index";
import { type CommittedMark, FindingType, Severity, type Finding } from "./types";

type Direction = "back" | "forward";

interface Move {
  direction: Direction;
  from: bigint;
  to: bigint;
  range: OffsetRange;
}

/**
 * MM2_POSITION_MOVED (warning) — MM2's position was changed by hand: Connect's
 * `PATCH /connectors/{name}/offsets` or `DELETE …/offsets` (KIP-875, connector STOPPED), or the
 * connector re-created under a new name. Not a crash: a crash never lowers Connect's committed
 * position (MM2 resumes from it; what it re-copies is MM2_REDELIVERY).
 *
 * LOGIC — per fresh flow partition whose committed position C is known, against the mark kept in
 * the detector memory (Connect's last committed position, the highest position MM2 reached, the
 * source topic ID; kept while C is unreadable or absent, e.g. offsets deleted, so the move is seen
 * when MM2 commits again; a new topic ID is TOPIC_RESET: it starts a new mark at the new topic's log start, and
 * Connect's committed position of the old topic is not compared until MM2 commits on the new one):
 * - back: C < the mark's committed position → MM2 copies [C, highest − 1] again (duplicates). Not where an
 *   unclean election truncated the source partition at or below C (seen or held, truncation-index.ts): MM2
 *   followed the new leader, and UNCLEAN_TRUNCATION is that event.
 * - forward: C > the highest position MM2 reached AND C > the position the target proves (newest
 *   sync + target log end, flow-builder `derivePosition`; not judged while that is unknown): MM2
 *   will never copy [highest, C − 1] (records that still exist at the source). Judged only while
 *   the connector copying the partition is STOPPED in this cycle and the previous one (offsets can
 *   only be altered then, and a stopped MM2 copies nothing), and reported once it holds in two
 *   cycles in a row with the same C: a stopping connector's last flush can land between the
 *   target's read and Connect's (both races seen in the soak and the clean run). Not judged on
 *   compacted partitions or where transaction markers were seen (markers make the proven
 *   position trail by their count).
 * - forward, from the offset syncs (findSkipsInSyncs): a new sync step that skipped offsets that
 *   still exist at the source — catches a move made and resumed faster than two cycles.
 * One event per move: key `MM2_POSITION_MOVED|<flow>|<topic>|<partition>|<direction>-<first>`.
 */
export function detectPositionMoves(
  ctx: DetectorContext,
  marks: Readonly<Record<string, CommittedMark>>,
): { candidates: EventCandidate[]; marks: Record<string, CommittedMark> } {
  const before = readCommittedTable(marks);
  const next = createCommittedMarksBuilder(marks, ctx.now);
  const candidates: EventCandidate[] = [];
  const freshFlows = new Set(ctx.current.flows.filter((flow) => isFlowFresh(ctx.current, flow)));
  // One pass over every partition: each keeps its mark unless it is fresh with a committed position
  // (listFreshFlowPartitions order); the marks of partitions that left every flow are kept after it (keepGoneMarks).
  // Marks are columns (committed-marks.ts): offsets as numbers, exact below 2^53 (flow-columns.ts checks them).
  let visited = 0;
  const columns = nameCommittedColumns(before);
  const pass: MarkPass = { ctx, before, next, candidates };
  for (const flow of ctx.current.flows) {
    const flowColumns = readFlowColumns(flow);
    const fresh = freshFlows.has(flow);
    // A slot's columns hold the last of a partition listed twice: such a flow's positions are read from the objects.
    const exact = !flowColumns.duplicates;
    const topicIds = createTopicIdReader(flow, flowColumns);
    for (let i = 0, n = countFlowPartitions(flow); i < n; i++) {
      const at = flowColumns.slotAt[i]!;
      const key = flowColumns.keys[at]!;
      const slot = next.slotOfKeyAt(flowColumns.keys, at);
      const had = before.present[slot] === 1;
      if (had) visited++;
      // Without duplicates a slot's known position is its own exactly when its data is known (flow-columns.ts).
      if (had && fresh && (exact ? flowColumns.knownPositionOf[at] === i : flow.partitions[i]!.unknown === null)) {
        // NaN: no committed position (the general path keeps the mark).
        const c = exact ? flowColumns.committedPosition[at]! : toNumber(flow.partitions[i]!.committedPosition);
        const topicId = topicIds(i);
        if (!Number.isNaN(c) && isRoutineAdvance(ctx, flow, i, topicId, c, columns, slot)) {
          const reached = exact ? flowColumns.mm2Position[at]! : toNumber(flow.partitions[i]!.mm2Position);
          putRoutineAdvance(next, columns, slot, flow, i, topicId, c, Number.isNaN(reached) ? c : reached);
          continue;
        }
      }
      judgeMark(pass, { key, flow, partition: readFlowPartition(flow, i), slot: at }, slot, had, fresh);
    }
  }
  keepGoneMarks(before, next, visited, ctx.now);
  candidates.push(...findSkipsInSyncs(ctx).map(([view, move]) => createMoveCandidate(view, move, "offset-sync-gap")));
  return { candidates, marks: next.finish() };
}

/** What one cycle's pass over the marks shares: the last marks, the next ones, the moves found. */
interface MarkPass {
  ctx: DetectorContext;
  before: MarkTable;
  next: MarkTableBuilder<CommittedMark>;
  candidates: EventCandidate[];
}

/**
 * The general path for one partition (not a routine advance): its mark kept, started again, or advanced, and a move
 * found against it.
 */
function judgeMark(pass: MarkPass, view: FlowPartitionView, slot: number, had: boolean, fresh: boolean): void {
  const { ctx, before, next, candidates } = pass;
  const { committedPosition: committed, mm2Position, sourceTopicId } = view.partition;
  const old = had ? readCommittedValues(before, slot) : undefined;
  // Back in a flow: no longer gone (its mark is put without goneSince, a change the persister writes).
  const gone = old !== undefined && !Number.isNaN(old.goneSince);
  if (old !== undefined) old.goneSince = Number.NaN;
  if (committed === null || !fresh || view.partition.unknown !== null) {
    if (old !== undefined) putCommittedMark(next, slot, gone, old);
    return;
  }
  const c = Number(committed);
  const connector = connectorOf(view.flow, view.partition);
  const sameTopic = old !== undefined && (old.topicId === null || sourceTopicId === null || old.topicId === sourceTopicId);
  if (old !== undefined && !sameTopic) {
    // The topic was deleted and recreated (TOPIC_RESET): MM2 starts the new topic at its earliest offset, and
    // Connect's committed position stays the old topic's until MM2 commits on the new one (seen in the bench: the
    // next cycles read 100 → 10 as "moved back by hand"). The new mark starts at the new log start.
    const start = Number(view.partition.sourceLogStart ?? 0n);
    putCommittedMark(next, slot, true, { ...newMark(start, start, sourceTopicId, connector), replacedCommitted: c === start ? Number.NaN : c });
    return;
  }
  // Another source connector copies the partition now (its topic moved between split connectors): its own offsets
  // start a new mark; what the change re-copies or skips is TOPIC_CHANGED_CONNECTOR.
  if (old !== undefined && sameTopic && old.connector !== connector) {
    putCommittedMark(next, slot, true, newMark(c, Math.max(Number(mm2Position ?? committed), c), sourceTopicId, connector));
    return;
  }
  if (old !== undefined && old.replacedCommitted === c) {
    putCommittedMark(next, slot, gone, old);
    return;
  }
  // Only a committed position outside [mark's committed, highest] can be a move (findMove): the others are not
  // converted back to bigints.
  const found = !sameTopic ? null : c >= old!.committed && c <= old!.highest ? null : findMove(ctx, view, { committed: BigInt(old!.committed), highest: BigInt(old!.highest) });
  // The connector has just stopped: judged next cycle against the mark as it was (absorbing the
  // committed position into `highest` now would hide a move made while it stays stopped).
  if (found === "wait") {
    putCommittedMark(next, slot, gone, old!);
    return;
  }
  // A forward move counts once it holds in two cycles in a row with the same committed position:
  // a connector being stopped flushes its last offsets between the target's read and Connect's
  // (seen in the soak: 11 partitions 2 records "ahead"), and the next cycle's target holds them.
  // A pending move is kept in the mark as committed > highest (otherwise highest ≥ committed).
  if (found?.direction === "forward" && !(old!.committed === c && c > old!.highest)) {
    putUpdatedMark(next, slot, gone, old!, c, old!.highest, sourceTopicId, connector);
    return;
  }
  const move = found;
  if (move !== null) candidates.push(createMoveCandidate(view, move, "connect-offsets"));
  const reached = Number(mm2Position ?? committed);
  const highest = move === null && sameTopic ? Math.max(old!.highest, reached) : reached;
  putUpdatedMark(next, slot, gone, old, c, Math.max(highest, c), sourceTopicId, connector);
}

/** A nullable offset as a number (NaN: null). */
function toNumber(value: bigint | null): number {
  return value === null ? Number.NaN : Number(value);
}

/**
 * The common case, read from the columns without making the mark: a fresh partition (its data known) whose committed
 * position `c` (known) makes a routine advance of its mark (committed-marks.ts isRoutineAdvance: same topic — a
 * topic ID unknown on either side is not another topic, as `sameTopic` reads it — and connector, not gone, the
 * committed position not below the mark's), with nothing set aside at its committed position, within the highest
 * position MM2 reached or past it while the connector is not STOPPED (MM2 copying on: a flush trails by less than a
 * cycle's progress) — the general path then finds no move (findMove) and only advances the mark (putRoutineAdvance).
 */
function isRoutineAdvance(
  ctx: DetectorContext,
  flow: Flow,
  i: number,
  sourceTopicId: string | null,
  c: number,
  columns: CommittedColumns,
  slot: number,
): boolean {
  if (columns.replacedCommitted[slot] === c) return false;
  const markTopic = columns.topicId[slot] ?? null;
  const topicId = markTopic === null || sourceTopicId === null ? markTopic : sourceTopicId;
  // The highest position the new mark gets is at least the mark's and c (putRoutineAdvance).
  const highest = Math.max(columns.highest[slot]!, c);
  if (!isCommittedAdvance(columns, slot, c, highest, Number.NaN, topicId, connectorAt(flow, i))) return false;
  // canJudgeForward's first question: a forward move is judged only while the connector is STOPPED.
  if (c <= columns.highest[slot]!) return true;
  return findConnectorState(ctx.current, readSourceConnector(flow, i) ?? flow.connectors.source) !== ConnectorState.STOPPED;
}

/**
 * The general path's mark for a routine advance: `highest` raised to where MM2 reached (`reached`: its position, else
 * `c`, the committed one), stored when it changed.
 */
function putRoutineAdvance(
  next: MarkTableBuilder<CommittedMark>,
  columns: CommittedColumns,
  slot: number,
  flow: Flow,
  i: number,
  sourceTopicId: string | null,
  c: number,
  reached: number,
): void {
  const highest = Math.max(columns.highest[slot]!, reached, c);
  const topicId = columns.topicId[slot] ?? null;
  const same = topicId === sourceTopicId && columns.committed[slot] === c && columns.highest[slot] === highest;
  const connector = connectorAt(flow, i);
  // Unchanged (isRoutineAdvance: not gone): the mark is carried over as it is, its texts too.
  if (same && columns.connector[slot] === connector) next.keep(slot);
  else if (same) putCommittedNumbers(next, slot, false, c, highest, columns.replacedCommitted[slot]!, topicId, connector);
  else putCommittedNumbers(next, slot, true, c, highest, Number.NaN, sourceTopicId, connector);
}

/** connectorOf the partition at position `i`: its object is read only where a flow is split over several copiers. */
function connectorAt(flow: Flow, i: number): string | undefined {
  return flow.connectors.sources.length > 1 ? (readSourceConnector(flow, i) ?? undefined) : undefined;
}

/**
 * The source topic ID of the partition at a position of the flow, read from its object only where the columns' topic
 * ID number differs from the last position's (equal numbers are equal IDs, flow-columns.ts): a topic's partitions
 * come together, so a cycle reads one object per topic, not per partition. A flow with duplicates reads each object.
 */
function createTopicIdReader(flow: Flow, columns: FlowColumns): (i: number) => string | null {
  if (columns.duplicates) return (i) => flow.partitions[i]!.sourceTopicId;
  let lastNumber = Number.NaN;
  let lastId: string | null = null;
  return (i) => {
    const number = columns.sourceTopicId[columns.slotAt[i]!]!;
    if (number !== lastNumber) {
      lastNumber = number;
      lastId = readPartitionTopic(flow, i).sourceTopicId;
    }
    return lastId;
  };
}

/** The connector a mark names: the partition's copier where a flow is split over several, else none. */
function connectorOf(flow: Flow, partition: FlowPartition): string | undefined {
  return flow.connectors.sources.length > 1 ? (partition.sourceConnector ?? undefined) : undefined;
}

/** A new mark: nothing set aside, not gone. */
function newMark(committed: number, highest: number, topicId: string | null, connector: string | undefined): CommittedValues {
  return { committed, highest, topicId, connector, replacedCommitted: Number.NaN, goneSince: Number.NaN };
}

/**
 * The mark for these values: `old` as it was when it already holds them (the position set aside at a reset kept),
 * else a new one (none set aside); `gone`: `old` was stored as gone (its stored form changes either way).
 */
function putUpdatedMark(
  next: MarkTableBuilder<CommittedMark>,
  slot: number,
  gone: boolean,
  old: CommittedValues | undefined,
  committed: number,
  highest: number,
  topicId: string | null,
  connector: string | undefined,
): void {
  const same = old !== undefined && old.topicId === topicId && old.committed === committed && old.highest === highest;
  if (same) putCommittedMark(next, slot, gone || old.connector !== connector, { ...old, connector });
  else putCommittedMark(next, slot, true, newMark(committed, highest, topicId, connector));
}

/** How long the mark of a partition that left every flow is kept. */
const goneMarkKeepMs = 24 * 3_600_000;

/**
 * Keeps the marks of partitions that left every flow, with when they left, for `goneMarkKeepMs`: a topic deleted and
 * recreated across a cycle that read it gone comes back with a new topic ID, and TOPIC_RESET judges it against the
 * old one kept here (the bench at load 13, 2026-12-02: latency-reset-0's marks were forgotten in the cycle that saw
 * the topic deleted, MM2 had committed on the new topic by the next one, and no TOPIC_RESET came). Walks the old
 * marks only in a cycle where some were not visited (a topic left, or gone marks are held).
 */
function keepGoneMarks(before: MarkTable, next: MarkTableBuilder<CommittedMark>, visited: number, now: number): void {
  if (visited >= before.size) return;
  for (let slot = 0; slot < before.present.length; slot++) {
    const key = before.index.keys[slot];
    if (before.present[slot] !== 1 || key === undefined || next.has(key)) continue;
    const mark = readCommittedValues(before, slot);
    if (Number.isNaN(mark.goneSince)) putCommittedMark(next, next.slotOf(key), true, { ...mark, goneSince: now });
    else if (now - mark.goneSince < goneMarkKeepMs) putCommittedMark(next, next.slotOf(key), false, mark);
  }
}

/**
 * Forward moves seen in the offset syncs: MM2 writes a sync at the first record after any upstream
 * jump (OffsetSyncWriter), so a new step (u1, d1) → (u2, d2) that advanced upstream k offsets more
 * than downstream skipped [u2 − k, u2 − 1]. When those offsets still exist at the source (log start
 * ≤ u2 − k; deleted ones are DATA_LOSS), MM2 was moved past records it could have copied — an
 * operator's PATCH made and resumed between two cycles, a consumer reset to latest. Not judged on
 * compacted partitions (gaps by design), on topics where transaction markers were seen on any
 * partition (markers are skipped offsets), for gaps of up to 2 offsets (the markers of back-to-back
 * transactions on a partition whose markers Gapwatch has not read yet: a 1–2 record move is a blind
 * spot), or where the target is not MM2's alone (its log end says nothing of MM2's copies).
 * The committed-position rule above reports the same range with the same key when it sees it too.
 */
function findSkipsInSyncs(ctx: DetectorContext): [FlowPartitionView, Move][] {
  const found: [FlowPartitionView, Move][] = [];
  if (ctx.newSyncs.size === 0) return found;
  // The topics where transaction markers were seen: listed once a partition has new sync steps to judge.
  let transactional: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  forEachJudged(ctx.judged, mayHaveSkipped, ({ view, before, syncs }) => {
    // Only new sync steps can show a skip.
    if (syncs.length < 2) return;
    const p = view.partition;
    if (p.sourceLogStart === null || p.targetDensityIssue !== null) return;
    transactional ??= listTransactionalTopics(ctx.current);
    if (transactional.get(view.flow.id)?.has(p.topic) === true) return;
    if (before.sourceTopicId !== null && p.sourceTopicId !== null && before.sourceTopicId !== p.sourceTopicId) return;
    if (isSourceCompacted(ctx.current, view) !== false) return;
    for (const gap of listUpstreamGaps(syncs)) {
      const first = gap.toUpstream - gap.skippedUpstream;
      if (p.sourceLogStart > first || gap.skippedUpstream <= maxMarkerRun || isCopierChangeSkip(p, first)) continue;
      found.push([view, { direction: "forward", from: first, to: gap.toUpstream, range: { first, last: gap.toUpstream - 1n, exact: true } }]);
    }
  });
  return found;
}

/** Offsets a sync gap may skip for transaction markers alone (as DATA_LOSS's maxMarkerGap). */
const maxMarkerRun = 2n;

/** A move, nothing, or "wait": a forward move cannot be judged before the next cycle. */
function findMove(ctx: DetectorContext, view: FlowPartitionView, mark: { committed: bigint; highest: bigint }): Move | "wait" | null {
  const p = view.partition;
  const committed = p.committedPosition!;
  const { committed: before, highest } = mark;
  if (committed < before) {
    if (highest <= committed || isExplainedByTruncation(ctx, view, committed)) return null;
    return { direction: "back", from: highest, to: committed, range: { first: committed, last: highest - 1n, exact: true } };
  }
  if (committed <= highest) return null;
  const judgeable = canJudgeForward(ctx, view);
  if (judgeable !== "yes") return judgeable === "not-yet" ? "wait" : null;
  // Without a position the target proves (no sync yet, or the target's log end read a moment after
  // the source's puts it past the source log end) progress cannot be told from a move: not judged.
  const proven = derivePosition(p.latestSync, p.targetLogEnd, p.sourceLogEnd);
  if (proven === null || committed <= proven) return null;
  return { direction: "forward", from: highest, to: committed, range: { first: highest, last: committed - 1n, exact: true } };
}

/**
 * A move back to a source offset at or past where an unclean election truncated the partition (seen or held):
 * MM2's consumer followed the truncation (KIP-320) and Connect committed its new position; UNCLEAN_TRUNCATION
 * is that event.
 */
function isExplainedByTruncation(ctx: DetectorContext, view: FlowPartitionView, committed: bigint): boolean {
  const truncation = findTruncation(ctx.truncations, view.flow.source, view.partition.topic, view.partition.partition);
  return truncation !== undefined && committed >= truncation.first;
}

function canJudgeForward(ctx: DetectorContext, view: FlowPartitionView): "yes" | "not-yet" | "no" {
  // Offsets can only be altered while the connector is STOPPED (KIP-875). While it runs, Connect's
  // offsets are read after the target's log end in a cycle, so they can be ahead of it by what MM2
  // copied in between (seen in the sandbox under steady traffic); the cycle that first sees it
  // STOPPED can still have read the target before MM2's last copies, so both cycles must see it.
  // (Asked first: a running connector's committed position passes its mark every cycle.)
  const name = view.partition.sourceConnector ?? view.flow.connectors.source;
  if (findConnectorState(ctx.current, name) !== ConnectorState.STOPPED) return "no";
  const compacted = isSourceCompacted(ctx.current, view);
  if (compacted !== false || view.partition.transactionMarkersSeen) return "no";
  return ctx.previous !== null && findConnectorState(ctx.previous, name) === ConnectorState.STOPPED ? "yes" : "not-yet";
}

/** Connector states by name per snapshot: asked for every partition whose committed position passed its mark. */
const connectorStates = new WeakMap<Snapshot, Map<string | null, string | null>>();

function findConnectorState(snapshot: Snapshot, name: string | null): string | null {
  let states = connectorStates.get(snapshot);
  if (states === undefined) connectorStates.set(snapshot, (states = new Map()));
  let state = states.get(name);
  if (state === undefined) {
    const reachable = snapshot.connect.filter((c) => c.reachable);
    state = reachable.flatMap((c) => c.connectors).find((c) => c.name === name)?.state ?? null;
    states.set(name, state);
  }
  return state;
}

/** How a move was seen: Connect's committed position, or a jump in MM2's offset syncs. */
type MoveSignal = "connect-offsets" | "offset-sync-gap";

function createMoveCandidate(view: FlowPartitionView, move: Move, signal: MoveSignal): EventCandidate {
  const { flow, partition } = view;
  const count = move.range.last - move.range.first + 1n;
  const records = `${formatCount(count)} ${count === 1n ? "record" : "records"}`;
  const name = namePartition(partition.topic, partition.partition);
  const summary =
    move.direction === "back"
      ? `MM2's position of ${name} was moved back by hand from ${move.from} to ${move.to} (Connect's offsets altered or deleted): ` +
        `MM2 copies offsets ${formatRange(move.range.first, move.range.last)} again (${records} duplicated on ${flow.target})`
      : signal === "offset-sync-gap"
        ? `MM2 jumped forward on ${name} from ${move.from} to ${move.to} while the records in between still exist ` +
          `(Connect's offsets altered, or its consumer reset to latest): ${records} never copied to ${flow.target} ` +
          `(offsets ${formatRange(move.range.first, move.range.last)})`
        : `MM2's position of ${name} was moved forward by hand from ${move.from} to ${move.to} (Connect's offsets altered): ` +
          `MM2 skips offsets ${formatRange(move.range.first, move.range.last)} (${records} never copied to ${flow.target})`;
  const finding: Omit<Finding, "key"> = {
    type: FindingType.MM2_POSITION_MOVED,
    severity: Severity.WARNING,
    flow: flow.id,
    cluster: flow.source,
    topic: partition.topic,
    partition: partition.partition,
    summary,
    evidence: {
      direction: move.direction,
      previousPosition: move.from.toString(),
      newPosition: move.to.toString(),
      firstAffectedOffset: move.range.first.toString(),
      lastAffectedOffset: move.range.last.toString(),
      affectedCount: count.toString(),
      connector: partition.sourceConnector ?? flow.connectors.source,
      signal,
    },
    observedAt: 0,
  };
  return {
    scope: `${FindingType.MM2_POSITION_MOVED}|${flow.id}|${partition.topic}|${partition.partition}`,
    // Each move is seen once (the mark moves with it); distinct moves never merge.
    tag: `${move.direction}-${move.range.first}`,
    keySuffix: `${move.direction}-${move.range.first}`,
    range: null,
    render: (key, _range, firstSeen) => ({ ...finding, key, evidence: { ...finding.evidence, seenAt: firstSeen }, observedAt: firstSeen }),
  };
}

/** Per flow id, every topic with a partition where transaction markers were seen (none: no entry). */
function listTransactionalTopics(snapshot: Snapshot): Map<string, Set<string>> {
  const byFlow = new Map<string, Set<string>>();
  for (const flow of snapshot.flows) {
    for (const p of flow.partitions) {
      if (!p.transactionMarkersSeen) continue;
      let topics = byFlow.get(flow.id);
      if (topics === undefined) byFlow.set(flow.id, (topics = new Set()));
      topics.add(p.topic);
    }
  }
  return byFlow;
}

/**
 * Only new sync steps onto a target MM2 alone writes can show a skip (the steady path: a partition without any is
 * skipped on its numbers).
 */
function mayHaveSkipped(judged: JudgedFlow, slot: number): boolean {
  const dense = (judged.now.flags[slot]! & FlowFlag.TARGET_NOT_DENSE) === 0;
  return dense && hasNewSyncStep(judged, slot, StepKind.UPSTREAM_GAP);
}
