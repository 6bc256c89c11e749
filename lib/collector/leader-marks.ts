/**
 * The last high watermark and leader epoch known per partition, kept across OFFLINE, unknown and
 * stale cycles and across restarts. UNCLEAN_TRUNCATION needs them: the common real unclean
 * election comes after an outage (unclean election is off by default, so the partition stays
 * OFFLINE until an operator runs `kafka-leader-election --election-type unclean` or sets the topic
 * config), and no cycle just before the election knew the log end. Whenever a partition's epoch is
 * above its mark's, however many cycles ago the mark was made, the collector asks the new leader
 * for its end offset of the mark's epoch (previous-epoch-end.ts).
 *
 * A mark advances only in a cycle that read the partition led with a known log end, and not while
 * an epoch rise is still unanswered (the next cycle asks again). Stored under one store value:
 * written at once when a mark appears, goes, changes epoch or topic, or stops advancing while the
 * store holds an older high watermark (the outage began: the exact last one is kept); ordinary
 * advances at most once per `routineWriteMs`. A restart after a crash (no last write) can start
 * from a mark up to that much behind: the lost range's end is then that much low, never too high.
 */
import { z } from "zod";
import { partitionKey } from "@/lib/kafka";
import { findTopicRows } from "./cluster-partition-rows";
import type { ClusterSnapshot } from "./types";

/** What the last cycle that read a partition led knew of it. */
export interface LeaderMark {
  epoch: number;
  /** The high watermark (ListOffsets latest). */
  logEnd: bigint;
  topicId: string | null;
  /** When it was read. */
  seenAt: number;
}

/** Marks per cluster alias, per `topic/partition`. */
export type LeaderMarks = Map<string, Map<string, LeaderMark>>;

/** Ordinary advances are written at most this often. */
export const routineWriteMs = 60_000;

/** The store value the marks are kept under. */
export const leaderMarksStoreKey = "collector-leader-marks";

/**
 * Advances the marks of one cluster from a cycle's snapshot of it; returns whether the store must be
 * written now (see the module comment; `writtenAt`: when the marks were last written, 0 never).
 */
export function advanceLeaderMarks(marks: LeaderMarks, cluster: ClusterSnapshot, writtenAt: number): boolean {
  let held = marks.get(cluster.alias);
  if (held === undefined) marks.set(cluster.alias, (held = new Map()));
  if (!cluster.reachable || cluster.stale) return hasUnwrittenMark(held, writtenAt);
  // Reused for every partition (no object per partition).
  const state: MarkedState = { leader: null, epoch: 0, unanswered: true, logEnd: Number.NaN };
  const pass: MarkPass = { held, present: new Set<string>(), writtenAt, seenAt: cluster.dataAt ?? 0, urgent: false };
  for (const topic of cluster.topics) {
    const found = findTopicRows(topic);
    if (found === undefined) {
      for (const p of topic.partitions) {
        state.leader = p.leader;
        state.epoch = p.leaderEpoch;
        state.unanswered = p.previousEpochEnd?.endOffset == null;
        state.logEnd = p.logEnd === null ? Number.NaN : Number(p.logEnd);
        advanceMark(pass, topic.topicId, partitionKey(p.topic, p.partition), state, p.logEnd);
      }
      continue;
    }
    // The cluster poll's rows: read as numbers, a log end made a bigint only where a mark takes a new one.
    const { rows, from, to } = found;
    for (let at = from; at < to; at++) {
      state.leader = rows.leaderOf(at);
      state.epoch = rows.leaderEpoch[at]!;
      state.unanswered = rows.rare.size === 0 || rows.rare.get(at)?.previousEpochEnd?.endOffset == null;
      state.logEnd = rows.logEnd[at]!;
      const key = partitionKey(topic.name, rows.partition[at]!);
      advanceMark(pass, topic.topicId, key, state, rows.isInexact(at) ? rows.logEndOf(at) : null);
    }
  }
  // Partitions of deleted topics.
  for (const key of held.keys()) {
    if (!pass.present.has(key)) {
      held.delete(key);
      pass.urgent = true;
    }
  }
  return pass.urgent;
}

/** One cluster's marks being advanced from its snapshot. */
interface MarkPass {
  held: Map<string, LeaderMark>;
  /** The partitions the snapshot lists. */
  present: Set<string>;
  writtenAt: number;
  seenAt: number;
  urgent: boolean;
}

/** What a mark reads of a partition's state. */
interface MarkedState {
  leader: number | null;
  epoch: number;
  /** No previous epoch end was read (none asked, or the read failed). */
  unanswered: boolean;
  /** The log end as a number; NaN when not read. */
  logEnd: number;
}

/**
 * Advances the mark of the partition `key` of a topic whose ID is `topicId` from its state `p`, whose log end is
 * `exactLogEnd` when given (else its number is exact).
 */
function advanceMark(pass: MarkPass, topicId: string | null, key: string, p: MarkedState, exactLogEnd: bigint | null): void {
  const { logEnd } = p;
  const { held } = pass;
  pass.present.add(key);
  const mark = held.get(key);
  const sameTopic = mark === undefined || mark.topicId === null || topicId === null || mark.topicId === topicId;
  if (p.leader === null || Number.isNaN(logEnd)) {
    if (mark !== undefined && !sameTopic) {
      held.delete(key);
      pass.urgent = true;
    } else if (mark !== undefined && mark.seenAt > pass.writtenAt) pass.urgent = true;
    return;
  }
  // An epoch rise not answered yet (OffsetForLeaderEpoch failed): asked again next cycle against the same mark.
  if (mark !== undefined && sameTopic && p.epoch > mark.epoch && p.unanswered) return;
  if (mark !== undefined && sameTopic && mark.epoch === p.epoch) {
    // The common case, every cycle on every partition: advanced in place (no allocation but a log end that moved).
    if (exactLogEnd !== null) mark.logEnd = exactLogEnd;
    else if (Number(mark.logEnd) !== logEnd) mark.logEnd = BigInt(logEnd);
    mark.seenAt = pass.seenAt;
    mark.topicId ??= topicId;
    return;
  }
  pass.urgent = true;
  held.set(key, { epoch: p.epoch, logEnd: exactLogEnd ?? BigInt(logEnd), topicId, seenAt: pass.seenAt });
}

function hasUnwrittenMark(held: ReadonlyMap<string, LeaderMark>, writtenAt: number): boolean {
  for (const mark of held.values()) if (mark.seenAt > writtenAt) return true;
  return false;
}

/** Stored form: per alias, per topic, its ID and `partition → [epoch, logEnd, seenAt]`. */
const storedSchema = z.record(
  z.string(),
  z.record(z.string(), z.object({ id: z.string().nullable(), p: z.record(z.string(), z.tuple([z.number().int(), z.string().regex(/^\d+$/), z.number()])) })),
);

/** The marks as the JSON stored (per topic, so a topic ID is written once). */
export function serializeLeaderMarks(marks: LeaderMarks): string {
  const out: z.infer<typeof storedSchema> = {};
  for (const [alias, held] of marks) {
    const topics: z.infer<typeof storedSchema>[string] = {};
    for (const [key, mark] of held) {
      const cut = key.lastIndexOf("/");
      const topic = key.slice(0, cut);
      const entry = (topics[topic] ??= { id: mark.topicId, p: {} });
      entry.p[key.slice(cut + 1)] = [mark.epoch, mark.logEnd.toString(), mark.seenAt];
    }
    out[alias] = topics;
  }
  return JSON.stringify(out);
}

/** Reads stored marks; anything unreadable gives none and the reason (no mark: no epoch rise is judged). */
export function parseLeaderMarks(json: string | null): { marks: LeaderMarks; error: string | null } {
  const marks: LeaderMarks = new Map();
  if (json === null) return { marks, error: null };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    return { marks, error: `stored leader marks are not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parsed = storedSchema.safeParse(raw);
  if (!parsed.success) return { marks, error: z.prettifyError(parsed.error) };
  for (const [alias, topics] of Object.entries(parsed.data)) {
    const held = new Map<string, LeaderMark>();
    for (const [topic, { id, p }] of Object.entries(topics)) {
      for (const [partition, [epoch, logEnd, seenAt]] of Object.entries(p)) {
        held.set(partitionKey(topic, Number(partition)), { epoch, logEnd: BigInt(logEnd), topicId: id, seenAt });
      }
    }
    marks.set(alias, held);
  }
  return { marks, error: null };
}
