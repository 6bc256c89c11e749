import type { ClusterSnapshot, Snapshot } from "@/lib/collector/types";
import { formatRange, listKnownGroups } from "./snapshot-views";

/** A consumer group whose committed offset lies past the point where the log diverged. */
export interface GroupPastDivergence {
  groupId: string;
  offset: bigint;
  /** −1: the commit carries no leader epoch, so the consumer cannot detect the truncation (KIP-320). */
  committedLeaderEpoch: number;
}

/** Lost records an MM2 flow had already copied to its target (source offsets). */
export interface CopiedLostRange {
  flow: string;
  target: string;
  first: bigint;
  last: bigint;
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
 * The lost offsets [first, last] each MM2 flow from `alias` had already copied in the previous
 * cycle (its position was above `first` and known): those records now exist only on the target.
 */
export function listCopiedLostRanges(
  previous: Snapshot | null,
  alias: string,
  topic: string,
  partition: number,
  first: bigint,
  last: bigint,
): CopiedLostRange[] {
  const copied: CopiedLostRange[] = [];
  for (const flow of previous?.flows ?? []) {
    if (flow.source !== alias) continue;
    const p = flow.partitions.find((x) => x.topic === topic && x.partition === partition);
    if (p === undefined || p.unknown !== null || p.mm2Position === null || p.mm2Position <= first) continue;
    copied.push({ flow: flow.id, target: flow.target, first, last: p.mm2Position - 1n < last ? p.mm2Position - 1n : last });
  }
  return copied;
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
