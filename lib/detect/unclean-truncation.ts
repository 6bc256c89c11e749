import type { ClusterSnapshot, PartitionState, PreviousEpochEnd } from "@/lib/collector/types";
import { readClusterColumns, TopicFlag } from "./cluster-columns";
import type { EventCandidate } from "./events";
import { countOf, formatCount, formatRange, isClusterFresh, namePartition, type DetectorContext } from "./snapshot-views";
import {
  type CopiedLostRange,
  describeCopied,
  describeGroups,
  judgeMm2Now,
  listCopiedLostRanges,
  listGroupsPastDivergence,
  type Mm2AfterTruncation,
} from "./truncation-consequences";
import { findLostRange, type LostRange } from "./truncation-index";
import { type Evidence, FindingType, Severity, type Finding, type HeldEvent } from "./types";

/**
 * UNCLEAN_TRUNCATION — a partition's leader epoch rose and the new leader does not hold records
 * Gapwatch last saw as committed: a replica without the latest records took over (unclean leader
 * election, KAFKA-763) and acknowledged records were truncated.
 *
 * LOGIC — per cluster fresh in this cycle, per partition whose epoch is above the epoch of its last
 * known high watermark (the collector's leader mark, kept across OFFLINE, unknown and stale cycles
 * and restarts: the common real path is a partition OFFLINE for minutes, then an operator's
 * `kafka-leader-election --election-type unclean`), the lost range of findLostRange
 * (truncation-index.ts): exact [new leader's end offset of the mark's epoch, mark's high watermark
 * − 1], or a lower bound from the log end when OffsetForLeaderEpoch failed. The range is exact for
 * what Gapwatch last saw; records committed after that read and before the old leader stopped were
 * never seen from outside. Records between the old leader's high watermark and its log end were
 * never committed: their loss is normal and not reported.
 * Consequences, in the evidence and summary: the lost offsets each MM2 flow from this cluster had
 * already copied (they now exist only on its target) and where its target topic holds them, what
 * MM2 did with the new records at the reused offsets (went back and copied them too — Kafka 4.3.1's
 * MM2 does, seen in the sandbox —, skipped them, or nothing yet), and the consumer groups whose
 * commit lies past the first lost offset (truncation-consequences.ts).
 * One finding per truncation: scope `UNCLEAN_TRUNCATION|<cluster>|<topic>|<partition>`, tagged and
 * keyed by the new leader epoch. A held truncation is seen again every cycle while an MM2 flow
 * copying the partition has not passed the divergence point (its position unknown, at or below the
 * first lost offset, or beyond the log end): until then the other rules read MM2's reaction as
 * part of it (truncation-index.ts), and the event does not expire under it.
 */
export function detectUncleanTruncation(ctx: DetectorContext, held: readonly HeldEvent[]): EventCandidate[] {
  const candidates: EventCandidate[] = [];
  const seen = new Set<string>();
  for (const cluster of ctx.current.clusters) {
    if (!isClusterFresh(cluster)) continue;
    const { topicFlags } = readClusterColumns(cluster);
    for (let t = 0; t < cluster.topics.length; t++) {
      // Only a topic with a partition whose epoch rose past its mark (previousEpochEnd read) can have lost records.
      if ((topicFlags[t]! & TopicFlag.EPOCH_END) === 0) continue;
      for (const partition of cluster.topics[t]!.partitions) {
        const end = partition.previousEpochEnd;
        const lost = end === undefined ? null : findLostRange(end, partition);
        if (lost === null) continue;
        const candidate = createTruncationCandidate(ctx, cluster, end!, partition, lost);
        seen.add(candidate.scope);
        candidates.push(candidate);
      }
    }
  }
  for (const e of held) {
    if (e.finding.type !== FindingType.UNCLEAN_TRUNCATION || seen.has(e.scope)) continue;
    const judged = judgeHeldReaction(ctx, e.finding);
    if (judged === null && !isMm2BeforeDivergence(ctx, e.finding)) continue;
    candidates.push({ scope: e.scope, tag: e.tag, keySuffix: e.tag, range: null, replaces: judged !== null, render: () => judged ?? e.finding });
  }
  return candidates;
}

const pendingClause = "; MM2 has not copied past the truncation yet";
const pendingText = "not past the truncation yet";

/**
 * A held truncation with MM2's reaction judged in this cycle for each flow it was still pending for (MM2 follows the
 * new leader only once it fetches again, and its offset syncs are read a cycle later); null when nothing was learned.
 */
function judgeHeldReaction(ctx: DetectorContext, held: Finding): Finding | null {
  const { cluster, topic, partition, evidence } = held;
  const { mm2AfterTruncation: before, copiedByMm2, firstLostOffset, lastLostOffset } = evidence;
  if (typeof before !== "string" || !before.includes(pendingText) || typeof copiedByMm2 !== "string") return null;
  if (cluster === undefined || topic === undefined || partition === undefined) return null;
  if (typeof firstLostOffset !== "string" || typeof lastLostOffset !== "string") return null;
  const [first, last] = [BigInt(firstLostOffset), BigInt(lastLostOffset)];
  let summary = held.summary;
  let reaction = before;
  const learned: CopiedLostRange[] = [];
  for (const flow of ctx.current.flows) {
    if (flow.source !== cluster || !reaction.includes(`${flow.id}: ${pendingText}`)) continue;
    const copied = new RegExp(`${escapeRegExp(flow.id)}: (\\d+)(?:–(\\d+))?`).exec(copiedByMm2);
    const p = flow.partitions.find((x) => x.topic === topic && x.partition === partition);
    if (copied === null || p === undefined || p.unknown !== null || p.sourceLogEnd === null) continue;
    const reusedEnd = minOf(p.sourceLogEnd, last + 1n);
    const next = judgeMm2Now(ctx, flow.id, { alias: cluster, topic, partition, first, last, reusedEnd });
    const at = summary.indexOf(`MM2 ${flow.id} had already copied`);
    const clause = at < 0 ? -1 : summary.indexOf(pendingClause, at);
    if (next.kind === "pending" || clause < 0) continue;
    const c: CopiedLostRange = { flow: flow.id, target: flow.target, targetTopic: p.targetTopic, first: BigInt(copied[1]!), last: BigInt(copied[2] ?? copied[1]!), onTargetFrom: null, next };
    summary = summary.slice(0, clause) + describeNextInWords(c) + summary.slice(clause + pendingClause.length);
    reaction = reaction.replace(`${flow.id}: ${pendingText}`, `${flow.id}: ${describeNext(next)}`);
    learned.push(c);
  }
  if (learned.length === 0) return null;
  const merged: Evidence = { ...evidence, mm2AfterTruncation: reaction };
  // Where the lost copies are was judged when the truncation was seen; what MM2 did since is added.
  for (const [name, value] of Object.entries(describeMm2Evidence(learned))) {
    if (name === "copiedLostOnTarget" || name === "mm2AfterTruncation") continue;
    const old = merged[name];
    merged[name] = typeof old !== "string" ? value : name.endsWith("Count") ? (BigInt(old) + BigInt(String(value))).toString() : `${old}, ${String(value)}`;
  }
  return { ...held, summary, evidence: merged };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether an MM2 flow from the truncated cluster has not yet passed the first lost offset (module comment). */
function isMm2BeforeDivergence(ctx: DetectorContext, truncation: Finding): boolean {
  const { cluster, topic, partition } = truncation;
  const first = truncation.evidence.firstLostOffset;
  if (cluster === undefined || topic === undefined || partition === undefined || typeof first !== "string") return false;
  const divergence = BigInt(first);
  for (const flow of ctx.current.flows) {
    if (flow.source !== cluster) continue;
    const p = flow.partitions.find((x) => x.topic === topic && x.partition === partition);
    if (p === undefined) continue;
    const position = p.unknown === null ? p.mm2Position : null;
    if (position === null || p.sourceLogEnd === null || position <= divergence || position > p.sourceLogEnd) return true;
  }
  return false;
}

function createTruncationCandidate(
  ctx: DetectorContext,
  cluster: ClusterSnapshot,
  before: PreviousEpochEnd,
  now: PartitionState,
  lost: LostRange,
): EventCandidate {
  const count = lost.last - lost.first + 1n;
  const name = `${namePartition(now.topic, now.partition)} at ${cluster.alias}`;
  const range = formatRange(lost.first, lost.last);
  // Offsets of the lost range that already hold other records (written after the election).
  const rewritten = now.logEnd === null ? null : minOf(now.logEnd, lost.last + 1n) - lost.first;
  const reusedEnd = lost.first + (rewritten ?? 0n);
  const truncated = { alias: cluster.alias, topic: now.topic, partition: now.partition, first: lost.first, last: lost.last, reusedEnd };
  const copied = listCopiedLostRanges(ctx, truncated);
  const groups = listGroupsPastDivergence(cluster, now.topic, now.partition, lost.first, now.leaderEpoch);
  const rewrote = rewritten !== null && rewritten > 0n ? `; ${countOf(rewritten, "of these offset")} already hold${rewritten === 1n ? "s" : ""} different records` : "";
  const what = lost.exact
    ? `${name} lost ${countOf(count, "acknowledged record")} (offsets ${range}) in an unclean leader election: the new leader ` +
      `(broker ${now.leader ?? "none"}, epoch ${now.leaderEpoch}) held epoch ${before.epoch}'s records only up to offset ` +
      `${lost.first - 1n}${rewrote}`
    : `${name} lost at least ${countOf(count, "acknowledged record")} (offsets ${range}) when leader epoch ` +
      `${before.epoch} → ${now.leaderEpoch} truncated the log (unclean leader election?)`;
  const summary = what + copied.map(describeCopiedInWords).join("") +
    (groups.length > 0 ? `; ${countOf(groups.length, "consumer group")} committed past offset ${lost.first}: ${describeGroups(groups)}` : "");
  const finding: Omit<Finding, "key" | "observedAt"> = {
    type: FindingType.UNCLEAN_TRUNCATION,
    severity: Severity.CRITICAL,
    cluster: cluster.alias,
    topic: now.topic,
    partition: now.partition,
    summary,
    evidence: {
      previousLogEnd: (lost.last + 1n).toString(),
      previousLogEndSeenAt: before.knownAt,
      newLogEnd: now.logEnd === null ? null : now.logEnd.toString(),
      lostCount: count.toString(),
      lostCountIsLowerBound: !lost.exact,
      firstLostOffset: lost.first.toString(),
      lastLostOffset: lost.last.toString(),
      ...(lost.exact ? { previousEpochEndOffset: lost.first.toString(), rewrittenCount: (rewritten ?? 0n).toString() } : {}),
      previousLeaderEpoch: before.epoch,
      newLeaderEpoch: now.leaderEpoch,
      leader: now.leader,
      ...(copied.length > 0
        ? { copiedByMm2: describeCopied(copied), copiedByMm2Count: copied.reduce((n, c) => n + c.last - c.first + 1n, 0n).toString() }
        : {}),
      ...describeMm2Evidence(copied),
      ...(groups.length > 0
        ? { groupsPastDivergence: describeGroups(groups), groupsWithoutLeaderEpoch: groups.filter((g) => g.committedLeaderEpoch < 0).length }
        : {}),
    },
  };
  return {
    scope: `${FindingType.UNCLEAN_TRUNCATION}|${cluster.alias}|${now.topic}|${now.partition}`,
    tag: String(now.leaderEpoch),
    keySuffix: `epoch${now.leaderEpoch}`,
    range: null,
    render: (key, _range, firstSeen) => ({ ...finding, key, evidence: { ...finding.evidence, seenAt: firstSeen }, observedAt: ctx.now }),
  };
}

function describeCopiedInWords(c: CopiedLostRange): string {
  const count = c.last - c.first + 1n;
  const where = c.onTargetFrom === null ? "" : `, as ${describeOnTarget(c, c.onTargetFrom)}`;
  const copied =
    `; MM2 ${c.flow} had already copied ${formatCount(count)} of them (${formatRange(c.first, c.last)}): ` +
    `only ${c.target} still holds them${where}`;
  return copied + describeNextInWords(c);
}

/** What MM2 did next, as the clause that follows what it had copied. */
function describeNextInWords(c: CopiedLostRange): string {
  const next = c.next;
  if (next.kind === "pending") return pendingClause;
  if (next.kind === "skipped") {
    return `; MM2 then went on past them and skipped the ${countOf(next.last - next.first + 1n, "new record")} at offsets ` +
      `${formatRange(next.first, next.last)}: ${c.target} will never hold them`;
  }
  if (next.copiedTo < next.to) {
    return `; MM2 then went back to offset ${next.to}: it copies the new records at the reused offsets too`;
  }
  const reused = next.copiedTo - next.to + 1n;
  const bothTo = next.copiedTo < c.last ? next.copiedTo : c.last;
  const both = bothTo >= next.to ? `: ${c.target} holds both versions of offsets ${formatRange(next.to, bothTo)}` : "";
  return `; MM2 then went back to offset ${next.to} and copied the ${countOf(reused, "new record")} at offsets ` +
    `${formatRange(next.to, next.copiedTo)} too, as ${c.targetTopic} ${formatRange(next.at, next.at + reused - 1n)}${both}`;
}

/** Where the targets hold the lost records, and what MM2 did with the new records at the reused offsets. */
function describeMm2Evidence(copied: readonly CopiedLostRange[]): Evidence {
  const evidence: Evidence = {};
  const located = copied.flatMap((c) => (c.onTargetFrom === null ? [] : [`${c.flow}: ${describeOnTarget(c, c.onTargetFrom)}`]));
  if (located.length > 0) evidence.copiedLostOnTarget = located.join(", ");
  if (copied.length > 0) evidence.mm2AfterTruncation = copied.map((c) => `${c.flow}: ${describeNext(c.next)}`).join(", ");
  const rewound = copied.flatMap((c) => (c.next.kind === "rewound" && c.next.copiedTo >= c.next.to ? [{ c, next: c.next }] : []));
  if (rewound.length > 0) {
    const at = (next: { to: bigint; copiedTo: bigint; at: bigint }) => formatRange(next.at, next.at + next.copiedTo - next.to);
    evidence.reusedOffsetsCopied = rewound
      .map(({ c, next }) => `${c.flow}: ${formatRange(next.to, next.copiedTo)} as ${c.targetTopic} ${at(next)}`)
      .join(", ");
    evidence.reusedOffsetsCopiedCount = rewound.reduce((n, { next }) => n + next.copiedTo - next.to + 1n, 0n).toString();
  }
  const skipped = copied.flatMap((c) => (c.next.kind === "skipped" ? [{ c, next: c.next }] : []));
  if (skipped.length > 0) {
    evidence.reusedOffsetsSkipped = skipped.map(({ c, next }) => `${c.flow}: ${formatRange(next.first, next.last)}`).join(", ");
    evidence.reusedOffsetsSkippedCount = skipped.reduce((n, { next }) => n + next.last - next.first + 1n, 0n).toString();
  }
  return evidence;
}

/** `east.payments 30–49`: where the target topic holds the copies of the lost records. */
function describeOnTarget(c: CopiedLostRange, from: bigint): string {
  return `${c.targetTopic} ${formatRange(from, from + c.last - c.first)}`;
}

function describeNext(next: Mm2AfterTruncation): string {
  if (next.kind === "rewound") return `rewound to ${next.to}`;
  if (next.kind === "skipped") return `skipped ${formatRange(next.first, next.last)}`;
  return "not past the truncation yet";
}

function minOf(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
