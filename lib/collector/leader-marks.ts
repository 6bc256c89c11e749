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
  let urgent = false;
  const present = new Set<string>();
  for (const topic of cluster.topics) {
    for (const p of topic.partitions) {
      const key = partitionKey(p.topic, p.partition);
      present.add(key);
      const mark = held.get(key);
      const sameTopic = mark === undefined || mark.topicId === null || topic.topicId === null || mark.topicId === topic.topicId;
      if (p.leader === null || p.logEnd === null) {
        if (mark !== undefined && !sameTopic) {
          held.delete(key);
          urgent = true;
        } else if (mark !== undefined && mark.seenAt > writtenAt) urgent = true;
        continue;
      }
      // An epoch rise not answered yet (OffsetForLeaderEpoch failed): asked again next cycle against the same mark.
      if (mark !== undefined && sameTopic && p.leaderEpoch > mark.epoch && p.previousEpochEnd?.endOffset == null) continue;
      const seenAt = cluster.dataAt ?? 0;
      if (mark !== undefined && sameTopic && mark.epoch === p.leaderEpoch) {
        // The common case, every cycle on every partition: advanced in place (no allocation).
        mark.logEnd = p.logEnd;
        mark.seenAt = seenAt;
        mark.topicId ??= topic.topicId;
        continue;
      }
      urgent = true;
      held.set(key, { epoch: p.leaderEpoch, logEnd: p.logEnd, topicId: topic.topicId, seenAt });
    }
  }
  // Partitions of deleted topics.
  for (const key of held.keys()) {
    if (!present.has(key)) {
      held.delete(key);
      urgent = true;
    }
  }
  return urgent;
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
