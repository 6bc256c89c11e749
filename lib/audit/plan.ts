import { type FlowColumns, readFlowColumns } from "@/lib/collector/flow-columns";
import { readSyncHistories, type SyncHistorySource } from "@/lib/collector/sync-history";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { selectLatestEpoch, type SyncPoint } from "@/lib/mm2";
import type { AuditWindow, FlowAuditPlan, WindowReason } from "./types";

/** Records compared per partition window: one Fetch of a few KiB returns them on each side. */
export const windowRecords = 20;
/** Focus offsets remembered as audited per partition (older ones are dropped). */
const rememberedFocus = 64;

/** Where the audit goes next, kept in memory between cycles by the caller (planAudit advances it). */
export interface AuditCursors {
  /** Per flow: index of the partition the round-robin starts at next cycle. */
  flows: Map<string, number>;
  /** Per `flowPartitionKey`. */
  partitions: Map<string, PartitionCursor>;
}

interface PartitionCursor {
  /** Next source offset of the walk over the replicated range (wraps to its start). */
  walk: bigint | null;
  /** Upstream offset of the newest offset sync already audited around. */
  syncAudited: bigint | null;
  /** Windows taken so far: turns alternate between the newest sync and the walk. */
  turns: number;
  /** Focus offsets already audited. */
  focusDone: string[];
  /** The source topic ID last seen. */
  topicId: string | null;
  /** After the topic ID changed: the first sync of the epoch that described the old topic, until a new epoch starts. */
  staleEpoch: string | null;
}

export function createAuditCursors(): AuditCursors {
  return { flows: new Map(), partitions: new Map() };
}

/** What planAudit reads. */
export interface AuditPlanInput {
  flows: readonly Flow[];
  /** The collector's offset-sync histories by `flowPartitionKey`. */
  syncs: SyncHistorySource;
  /** Source offsets around open findings (loss, reset, redelivery, moved position) by `flowPartitionKey`. */
  focus: ReadonlyMap<string, readonly bigint[]>;
  /** Records per flow this cycle (audit.recordsPerFlowPerMinute × the poll interval). */
  budget: number;
  /** audit.exclude: source topics never audited. */
  exclude: readonly RegExp[];
}

/**
 * The cycle's sample: per flow, partitions in round-robin order (the cursor covers every replicated partition
 * over time) until the budget is spent, one window of up to `windowRecords` records each, starting
 * 1. around an open finding's offsets not audited yet, else
 * 2. on alternate turns around the newest offset sync not audited yet (records on both sides of it), else
 * 3. at the walk cursor, which steps through the replicated range [max(log start, first sync of the latest
 *    epoch), MM2's position) and wraps.
 * Only partitions whose data is known this cycle, with offset syncs that describe the current source log and copied
 * records, are sampled; a source or target partition is taken once per cycle (so each side costs at most one Fetch
 * per leader broker). Which partitions can be sampled is read from the flow's columns (flow-columns.ts): a
 * partition's object is read only for those (at 100,000 partitions a cycle samples tens).
 * Advances `cursors` in place.
 */
export function planAudit(input: AuditPlanInput, cursors: AuditCursors): FlowAuditPlan[] {
  const taken = new Set<string>();
  const plans: FlowAuditPlan[] = [];
  const syncs = readSyncHistories(input.syncs);
  for (const flow of input.flows) {
    const windows: AuditWindow[] = [];
    const count = flow.partitions.length;
    const start = (cursors.flows.get(flow.id) ?? 0) % Math.max(count, 1);
    const columns = readFlowColumns(flow);
    let budget = input.budget;
    let visited = 0;
    while (visited < count && budget > 0) {
      const i = (start + visited) % count;
      visited++;
      const slot = columns.slotAt[i]!;
      // A partition listed twice has the columns of its last listing: its objects are read.
      if (!columns.duplicates && !canSample(columns, slot, i)) continue;
      const key = columns.keys[slot]!;
      const history = syncs.list(key);
      if (history.length === 0) continue;
      const p = flow.partitions[i]!;
      const sides = [`${flow.source}|${p.topic}|${p.partition}`, `${flow.target}|${p.targetTopic}|${p.partition}`];
      if (sides.some((s) => taken.has(s)) || input.exclude.some((re) => re.test(p.topic))) continue;
      const window = planWindow(flow.id, p, history, input.focus.get(key) ?? [], cursors, key, Math.min(budget, windowRecords));
      if (window === null) continue;
      for (const s of sides) taken.add(s);
      windows.push(window);
      budget -= window.count;
    }
    cursors.flows.set(flow.id, (start + visited) % Math.max(count, 1));
    if (windows.length > 0) plans.push({ flow: flow.id, source: flow.source, target: flow.target, windows });
  }
  return plans;
}

/** Whether the partition at position `i` (slot `slot`) has what a window needs: known data, MM2's position, both logs. */
function canSample(columns: FlowColumns, slot: number, i: number): boolean {
  return (
    columns.knownPositionOf[slot] === i &&
    !Number.isNaN(columns.mm2Position[slot]!) &&
    !Number.isNaN(columns.sourceLogStart[slot]!) &&
    !Number.isNaN(columns.targetLogEnd[slot]!)
  );
}

function cursorOf(cursors: AuditCursors, key: string): PartitionCursor {
  let cursor = cursors.partitions.get(key);
  if (cursor === undefined) {
    cursor = { walk: null, syncAudited: null, turns: 0, focusDone: [], topicId: null, staleEpoch: null };
    cursors.partitions.set(key, cursor);
  }
  return cursor;
}

function planWindow(
  flow: string,
  p: FlowPartition,
  history: readonly SyncPoint[],
  focus: readonly bigint[],
  cursors: AuditCursors,
  key: string,
  count: number,
): AuditWindow | null {
  if (p.unknown !== null || p.mm2Position === null || p.sourceLogStart === null || p.targetLogEnd === null) return null;
  const cursor = cursorOf(cursors, key);
  const epoch = selectLatestEpoch(history);
  if (describesAnotherLog(p, epoch, cursor)) return null;
  const low = maxOf(p.sourceLogStart, epoch[0]!.upstream);
  const high = p.mm2Position;
  if (low >= high) return null;
  const half = BigInt(Math.floor(count / 2));
  const clamp = (from: bigint) => (from < low ? low : from >= high ? high - 1n : from);
  const make = (from: bigint, reason: WindowReason): AuditWindow => ({ flow, topic: p.topic, partition: p.partition, targetTopic: p.targetTopic, from: clamp(from), count, until: high, reason });
  const pending = focus.find((o) => o >= low && o < high && !cursor.focusDone.includes(o.toString()));
  cursor.turns++;
  if (pending !== undefined) {
    cursor.focusDone = [...cursor.focusDone, pending.toString()].slice(-rememberedFocus);
    return make(pending - half, "finding");
  }
  const newest = epoch[epoch.length - 1]!;
  if (cursor.turns % 2 === 1 && newest.upstream !== cursor.syncAudited && newest.upstream >= low && newest.upstream < high) {
    cursor.syncAudited = newest.upstream;
    return make(newest.upstream - half, "offset-sync");
  }
  const from = cursor.walk === null || cursor.walk < low || cursor.walk >= high ? low : cursor.walk;
  cursor.walk = from + BigInt(count);
  return make(from, "cursor");
}

/**
 * The latest epoch's syncs may describe a source log that is gone: the topic was deleted and recreated (new topic
 * ID; MM2 starts a new epoch with a rewind sync once it copies from the new topic), or the log now ends below the
 * newest sync (reset, unclean truncation). Comparing the new records with the old copies would report mismatches
 * that TOPIC_RESET / UNCLEAN_TRUNCATION already explain, so such a partition is not sampled until the syncs fit.
 */
function describesAnotherLog(p: FlowPartition, epoch: readonly SyncPoint[], cursor: PartitionCursor): boolean {
  const first = `${epoch[0]!.upstream}:${epoch[0]!.downstream}`;
  if (p.sourceTopicId !== null) {
    if (cursor.topicId !== null && p.sourceTopicId !== cursor.topicId) cursor.staleEpoch = first;
    cursor.topicId = p.sourceTopicId;
  }
  if (cursor.staleEpoch !== null && cursor.staleEpoch !== first) cursor.staleEpoch = null;
  return cursor.staleEpoch !== null || (p.sourceLogEnd !== null && epoch[epoch.length - 1]!.upstream >= p.sourceLogEnd);
}

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
