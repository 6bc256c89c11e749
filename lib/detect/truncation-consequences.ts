import { type ClusterSnapshot, type FlowPartition, flowPartitionKey, type OffsetSyncPoint, type Snapshot } from "@/lib/collector/types";
import type { SyncHistories } from "@/lib/collector/sync-history";
import { formatRange, listKnownGroups } from "./snapshot-views";

/** A consumer group whose committed offset lies past the point where the log diverged. */
export interface GroupPastDivergence {
  groupId: string;
  offset: bigint;
  /** −1: the commit carries no leader epoch, so the consumer cannot detect the truncation (KIP-320). */
  committedLeaderEpoch: number;
}

/**
 * Groups of `cluster` whose committed offset on the partition is above `divergence` and was made
 * before the new epoch (a commit carrying an epoch ≥ `newEpoch` was made on the new log). Such a
 * group read records that are gone; on resume it starts inside the rewritten range (skipping the
 * new records below its offset) or past the log end (its reset policy decides) — unless its
 * client validates the commit's leader epoch (KIP-320: the Java consumer rewinds to the divergence
 * point, SubscriptionState.maybeCompleteValidation), which a commit without an epoch cannot do.
 */
export function listGroupsPastDivergence(
  cluster: ClusterSnapshot,
  topic: string,
  partition: number,
  divergence: bigint,
  newEpoch: number,
): GroupPastDivergence[] {
  const groups: GroupPastDivergence[] = [];
  for (const group of listKnownGroups(cluster)) {
    const commit = group.offsets.find((o) => o.topic === topic && o.partition === partition);
    if (commit === undefined || commit.offset <= divergence || commit.committedLeaderEpoch >= newEpoch) continue;
    groups.push({ groupId: group.groupId, offset: commit.offset, committedLeaderEpoch: commit.committedLeaderEpoch });
  }
  return groups;
}

/**
 * Lost records an MM2 flow had already copied to its target (source offsets `first`–`last`), where
 * the target holds them, and what MM2 did next with the new records at the reused offsets.
 */
export interface CopiedLostRange {
  flow: string;
  target: string;
  targetTopic: string;
  first: bigint;
  last: bigint;
  /** Target offset of the copy of `first` (the copies are consecutive); null when the offset syncs do not prove it. */
  onTargetFrom: bigint | null;
  next: Mm2AfterTruncation;
}

/**
 * What MM2 did after the truncation, from the offset syncs new this cycle and its position:
 * - rewound: its consumer validated its position against the new leader (KIP-320,
 *   SubscriptionState.maybeCompleteValidation: with a reset policy, as MM2's `earliest`, it seeks
 *   to the divergence point) and copies the new records at the reused offsets too; `copiedTo` is
 *   the last reused offset copied so far (below `to` when none yet), the first at target `at`;
 * - skipped: it went on from its old position, so the new records at [first, last] of the reused
 *   offsets are never copied;
 * - pending: it has not copied anything past the truncation yet (or the data does not tell).
 */
export type Mm2AfterTruncation =
  | { kind: "rewound"; to: bigint; copiedTo: bigint; at: bigint }
  | { kind: "skipped"; first: bigint; last: bigint }
  | { kind: "pending" };

/** The source partition's lost offsets [first, last]; the new leader holds new records at [first, reusedEnd − 1]. */
export interface TruncatedPartition {
  alias: string;
  topic: string;
  partition: number;
  first: bigint;
  last: bigint;
  reusedEnd: bigint;
}

/** What the consequences are read from: the detector context's snapshots and offset syncs. */
export interface TruncationInputs {
  previous: Snapshot | null;
  current: Snapshot;
  newSyncs: ReadonlyMap<string, readonly OffsetSyncPoint[]>;
  syncHistory: SyncHistories;
}

/**
 * The lost offsets each MM2 flow from the truncated cluster had already copied by the previous
 * cycle (its position was above `first`; also when the partition was unknown then, OFFLINE before
 * the election: MM2 copies nothing meanwhile): those records now exist only on the target.
 * Where: MM2 copies consecutive upstream offsets between two offset syncs (it writes one at once
 * at any upstream gap, OffsetSyncWriter), so the copy of `first` sits at s.downstream + (first −
 * s.upstream) for the newest sync s at or below `first` from which every step up to MM2's last
 * pre-truncation sync is gap-free; unknown when the bounded history holds no such run.
 */
export function listCopiedLostRanges(inputs: TruncationInputs, lost: TruncatedPartition): CopiedLostRange[] {
  const copied: CopiedLostRange[] = [];
  for (const flow of inputs.previous?.flows ?? []) {
    if (flow.source !== lost.alias) continue;
    const p = flow.partitions.find((x) => x.topic === lost.topic && x.partition === lost.partition);
    // An unknown partition's position (the source OFFLINE before the election) is the last MM2 reached: it copies nothing then.
    if (p === undefined || p.mm2Position === null || p.mm2Position <= lost.first) continue;
    const key = flowPartitionKey(flow.id, lost.topic, lost.partition);
    const steps = inputs.newSyncs.get(key) ?? [];
    const history = inputs.syncHistory.list(key);
    const rewind = findRewind(steps, lost);
    // Without a rewind, the newest sync before the truncation is the last examined one (steps[0])
    // or, with no new step, the newest held.
    const anchor = rewind?.from ?? steps[0] ?? history[history.length - 1];
    const now = inputs.current.flows.find((f) => f.id === flow.id)?.partitions.find((x) => x.topic === lost.topic && x.partition === lost.partition);
    copied.push({
      flow: flow.id,
      target: flow.target,
      targetTopic: p.targetTopic,
      first: lost.first,
      last: p.mm2Position - 1n < lost.last ? p.mm2Position - 1n : lost.last,
      onTargetFrom: anchor === undefined ? null : locateCopy(history, anchor, lost.first),
      next: rewind !== null ? describeRewind(rewind, steps, now, lost) : judgeWithoutRewind(p, now, lost),
    });
  }
  return copied;
}

/**
 * What MM2 did after a truncation judged in an earlier cycle (`lost`: held), read from this cycle's new offset
 * syncs and positions as in the cycle that saw it: a rewind step into the lost range, else a skip proven by the
 * target, else still pending. MM2's consumer may follow the new leader cycles later (it fetches only once the
 * partition leads again, and its syncs are read with the next cycle).
 */
export function judgeMm2Now(inputs: TruncationInputs, flowId: string, lost: TruncatedPartition): Mm2AfterTruncation {
  const flowOf = (snapshot: Snapshot | null) =>
    snapshot?.flows.find((f) => f.id === flowId)?.partitions.find((x) => x.topic === lost.topic && x.partition === lost.partition);
  const now = flowOf(inputs.current);
  const steps = inputs.newSyncs.get(flowPartitionKey(flowId, lost.topic, lost.partition)) ?? [];
  const rewind = findRewind(steps, lost);
  if (rewind !== null) return describeRewind(rewind, steps, now, lost);
  const before = flowOf(inputs.previous);
  return before === undefined ? { kind: "pending" } : judgeWithoutRewind(before, now, lost);
}

interface Rewind {
  from: OffsetSyncPoint;
  to: OffsetSyncPoint;
}

/** A new sync step that went back into the lost range: MM2 copied from there again. */
function findRewind(steps: readonly OffsetSyncPoint[], lost: TruncatedPartition): Rewind | null {
  for (let i = 1; i < steps.length; i++) {
    const from = steps[i - 1]!;
    const to = steps[i]!;
    const wentBack = to.upstream < from.upstream + (to.downstream - from.downstream);
    if (wentBack && to.upstream >= lost.first && to.upstream <= lost.last) return { from, to };
  }
  return null;
}

/** Target offset of upstream `offset`, from the gap-free run of syncs that ends at `anchor`; null when not proven. */
function locateCopy(history: readonly OffsetSyncPoint[], anchor: OffsetSyncPoint, offset: bigint): bigint | null {
  let i = history.findLastIndex((s) => s.upstream === anchor.upstream && s.downstream === anchor.downstream);
  if (i < 0) return anchor.upstream <= offset ? anchor.downstream + (offset - anchor.upstream) : null;
  while (history[i]!.upstream > offset) {
    const later = history[i]!;
    const earlier = history[i - 1];
    if (earlier === undefined || later.upstream - earlier.upstream !== later.downstream - earlier.downstream) return null;
    i--;
  }
  const s = history[i]!;
  return s.downstream + (offset - s.upstream);
}

/** The reused offsets MM2 copied after going back: its run from the rewind sync, up to its position now. */
function describeRewind(
  rewind: Rewind,
  steps: readonly OffsetSyncPoint[],
  now: FlowPartition | undefined,
  lost: TruncatedPartition,
): Mm2AfterTruncation {
  // The run from the rewind sync is gap-free up to the next step that is not.
  let end = now?.unknown === null && now.mm2Position !== null ? now.mm2Position : rewind.to.upstream;
  for (let i = steps.indexOf(rewind.to) + 1; i < steps.length; i++) {
    const a = steps[i - 1]!;
    const b = steps[i]!;
    if (b.upstream - a.upstream !== b.downstream - a.downstream) {
      end = a.upstream + (b.downstream - a.downstream);
      break;
    }
  }
  const copiedEnd = end < lost.reusedEnd ? end : lost.reusedEnd;
  return { kind: "rewound", to: rewind.to.upstream, copiedTo: copiedEnd - 1n, at: rewind.to.downstream };
}

/**
 * No rewind step: MM2 skipped the reused offsets below its old position when it has copied new
 * records since and the target grew by exactly as many as its position advanced (a rewind not read
 * yet would have written more); otherwise nothing is known yet.
 */
function judgeWithoutRewind(before: FlowPartition, now: FlowPartition | undefined, lost: TruncatedPartition): Mm2AfterTruncation {
  if (now === undefined || now.unknown !== null || now.targetDensityIssue !== null) return { kind: "pending" };
  const [p0, p1, t0, t1] = [before.mm2Position, now.mm2Position, before.targetLogEnd, now.targetLogEnd];
  if (p0 === null || p1 === null || t0 === null || t1 === null || p1 <= p0 || t1 - t0 !== p1 - p0) return { kind: "pending" };
  const last = (p0 < lost.reusedEnd ? p0 : lost.reusedEnd) - 1n;
  return last < lost.first ? { kind: "pending" } : { kind: "skipped", first: lost.first, last };
}

/**
 * Whether an MM2 sync step that went back to `upstream` is MM2 following an unclean truncation
 * seen in this cycle (KIP-320: its consumer seeks to exactly the new leader's end offset of the
 * previous epoch) rather than a redelivery: the source partition's new leader diverges there.
 * A clean leader's epoch ends at or past everything MM2 copied, so no going-back step lands there.
 */
export function isRewindToDivergence(current: Snapshot, alias: string, topic: string, partition: number, upstream: bigint): boolean {
  const p = current.clusters.find((c) => c.alias === alias)?.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partition === partition);
  return p?.previousEpochEnd?.endOffset === upstream;
}

/** `billing at 45 (no leader epoch), audit at 52 (epoch 3)` for evidence and summaries. */
export function describeGroups(groups: readonly GroupPastDivergence[]): string {
  const epochOf = (g: GroupPastDivergence) => (g.committedLeaderEpoch < 0 ? "no leader epoch" : `epoch ${g.committedLeaderEpoch}`);
  return groups.map((g) => `${g.groupId} at ${g.offset} (${epochOf(g)})`).join(", ");
}

/** `east->west: 30–49` for evidence. */
export function describeCopied(copied: readonly CopiedLostRange[]): string {
  return copied.map((c) => `${c.flow}: ${formatRange(c.first, c.last)}`).join(", ");
}
