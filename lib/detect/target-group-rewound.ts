import type { CheckpointPoint, ClusterSnapshot, ConsumerGroupState, Flow } from "@/lib/collector/types";
import type { EventCandidate } from "./events";
import { countOf, findCluster, isClusterFresh, summarizeNames, type DetectorContext } from "./snapshot-views";
import { FindingType, Severity, type Finding } from "./types";

/** One partition of a target group whose committed offset went back. */
interface Rewind {
  topic: string;
  partition: number;
  from: bigint;
  to: bigint;
}

/**
 * TARGET_GROUP_REWOUND (critical, an event) — MM2 overwrote the offsets of an active target group and
 * its consumers re-read what they had processed (KAFKA-19794, apache/kafka#22610): MirrorCheckpointTask
 * with sync.group.offsets.enabled writes translated offsets into target groups it saw EMPTY, and a
 * consumer that joined meanwhile is rewound to them.
 *
 * LOGIC — per flow whose checkpoint connector has sync.group.offsets.enabled=true, on its target
 * cluster fresh in this cycle and the previous one; per group read well in both cycles with members in
 * both (an empty group may legitimately be written by MM2; an operator's `--reset-offsets` needs an
 * inactive group); per partition of a remote topic of the flow whose committed offset is lower now
 * than in the previous cycle, whose target topic kept its topic ID and whose log end did not fall below
 * the earlier offset (a topic recreated or truncated on the target is not a rewind), and whose new
 * offset is exactly the downstream offset of MM2's checkpoint for that group and partition (this cycle's
 * or the previous one's): a consumer seeking back by itself does not land on MM2's checkpoint.
 * One event per group and cycle, scope `TARGET_GROUP_REWOUND|<flow>|<group>`, with every rewound partition.
 */
export function detectTargetGroupRewinds(ctx: DetectorContext): EventCandidate[] {
  const previous = ctx.previous;
  if (previous === null) return [];
  const candidates: EventCandidate[] = [];
  for (const flow of ctx.current.flows) {
    if (flow.syncGroupOffsets !== true) continue;
    const target = findCluster(ctx.current, flow.target);
    const targetBefore = findCluster(previous, flow.target);
    if (!isClusterFresh(target) || !isClusterFresh(targetBefore)) continue;
    const before = previous.flows.find((f) => f.id === flow.id);
    // Indexed only once a committed offset went back (most cycles none does: 190,000 checkpoints at 100k partitions).
    let checkpoints: Map<string, Set<bigint>> | undefined;
    const indexOnce = () => (checkpoints ??= indexCheckpointDownstreams(flow, [flow.checkpoints, before?.checkpoints ?? []]));
    const groupsBefore = new Map(targetBefore.groups.map((g) => [g.groupId, g]));
    for (const group of target.groups) {
      const old = groupsBefore.get(group.groupId);
      if (old === undefined || !isActive(group) || !isActive(old)) continue;
      const rewinds = findRewinds(group, old, target, targetBefore, indexOnce);
      if (rewinds.length > 0) candidates.push(createCandidate(ctx, flow, group, rewinds));
    }
  }
  return candidates;
}

function isActive(group: ConsumerGroupState): boolean {
  return group.error === null && group.members > 0;
}

/** MM2's checkpoint downstream offsets per `<group>|<target topic>|<partition>` (checkpoints name the source topic). */
function indexCheckpointDownstreams(flow: Flow, lists: readonly (readonly CheckpointPoint[])[]): Map<string, Set<bigint>> {
  const remote = new Map<string, string>();
  for (const p of flow.partitions) remote.set(p.topic, p.targetTopic);
  const index = new Map<string, Set<bigint>>();
  for (const list of lists) {
    for (const c of list) {
      const targetTopic = remote.get(c.topic);
      if (targetTopic === undefined) continue;
      const key = `${c.group}|${targetTopic}|${c.partition}`;
      let offsets = index.get(key);
      if (offsets === undefined) index.set(key, (offsets = new Set()));
      offsets.add(c.downstream);
    }
  }
  return index;
}

function findRewinds(
  group: ConsumerGroupState,
  old: ConsumerGroupState,
  target: ClusterSnapshot,
  targetBefore: ClusterSnapshot,
  checkpoints: () => Map<string, Set<bigint>>,
): Rewind[] {
  // Both reads list a group's offsets in the same order: matched by position, by key only when not.
  let earlier: Map<string, bigint> | undefined;
  const rewinds: Rewind[] = [];
  for (let i = 0; i < group.offsets.length; i++) {
    const o = group.offsets[i]!;
    const same = old.offsets[i];
    const from =
      same !== undefined && same.topic === o.topic && same.partition === o.partition
        ? same.offset
        : (earlier ??= new Map(old.offsets.map((e) => [`${e.topic}|${e.partition}`, e.offset]))).get(`${o.topic}|${o.partition}`);
    if (from === undefined || o.offset >= from) continue;
    if (!checkpoints().get(`${group.groupId}|${o.topic}|${o.partition}`)?.has(o.offset)) continue;
    const topic = target.topics.find((t) => t.name === o.topic);
    const topicBefore = targetBefore.topics.find((t) => t.name === o.topic);
    if (topic === undefined || topicBefore === undefined || topic.topicId !== topicBefore.topicId) continue;
    const logEnd = topic.partitions.find((p) => p.partition === o.partition)?.logEnd ?? null;
    if (logEnd === null || logEnd < from) continue;
    rewinds.push({ topic: o.topic, partition: o.partition, from, to: o.offset });
  }
  return rewinds.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

function createCandidate(ctx: DetectorContext, flow: Flow, group: ConsumerGroupState, rewinds: Rewind[]): EventCandidate {
  const records = rewinds.reduce((sum, r) => sum + (r.from - r.to), 0n);
  const moves = rewinds.map((r) => `${r.topic}/${r.partition} ${r.from}→${r.to}`);
  return {
    scope: `${FindingType.TARGET_GROUP_REWOUND}|${flow.id}|${group.groupId}`,
    tag: String(ctx.now),
    keySuffix: String(ctx.now),
    range: null,
    render: (key, _range, firstSeen): Finding => ({
      key,
      type: FindingType.TARGET_GROUP_REWOUND,
      severity: Severity.CRITICAL,
      flow: flow.id,
      cluster: flow.target,
      group: group.groupId,
      ...(rewinds.length === 1 ? { topic: rewinds[0]!.topic, partition: rewinds[0]!.partition } : {}),
      summary:
        `MM2 rewound the active group ${group.groupId} at ${flow.target} (${countOf(group.members, "member")}) to its checkpoints on ` +
        `${countOf(rewinds.length, "partition")} (${summarizeNames(moves)}): its consumers re-read ${countOf(records, "record")} (KAFKA-19794)`,
      evidence: {
        partitions: rewinds.map((r) => `${r.topic}/${r.partition}:${r.from}->${r.to}`).join(","),
        rewoundRecords: records.toString(),
        members: group.members,
        rewoundAt: firstSeen,
      },
      observedAt: ctx.now,
    }),
  };
}
