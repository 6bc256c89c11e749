import { judgeTopic } from "@/lib/mm2";
import type { FlowDefinition } from "./flow-discovery";
import type { ExcludedTopic, TopicState } from "./types";

/** Whether a source topic is in the flow now, and which source connector copies it. */
export type MembershipVerdict = { member: true; connector: string | null } | { member: false; reason: string | null };

/** What the cycle read that membership depends on. */
export interface MembershipContext {
  /** Topic names on the target cluster (a set, or the keys of a map of the target's topics). */
  targetTopics: Pick<ReadonlySet<string>, "has">;
  /** Source topics for which Connect holds MM2's positions (any connector of the flow). */
  positionTopics: ReadonlySet<string>;
}

/**
 * A source topic is in the flow when MM2 replicates it NOW, not because Connect holds offsets (it
 * keeps those of topics MM2 no longer copies):
 * - a source connector whose topic filter Gapwatch evaluates (DefaultTopicFilter) takes the topic
 *   by MirrorSourceConnector.shouldReplicateTopic (lib/mm2/topic-filter.ts) → member, copied by the
 *   first such connector in name order;
 * - a connector whose filter is unknown (custom `topic.filter.class`, `topics.blacklist` only, a
 *   pattern that does not compile here), and dedicated-mode MM2 whose config topic was not read
 *   completely yet (no connector config): the older
 *   rule — Connect holds a position for the topic, or it is not internal and its remote topic exists
 *   on the target under a name MM2 gave it (with IdentityReplicationPolicy names are kept, and a
 *   same-named target topic, `__consumer_offsets` or a local one, proves nothing: hasRenamedRemote);
 * - otherwise not a member; the reason is the first known filter's verdict (null when unknown).
 */
export function decideMembership(def: FlowDefinition, topic: TopicState, ctx: MembershipContext): MembershipVerdict {
  const reasons: string[] = [];
  let unknownFilter: string | null = null;
  for (const { connector, spec } of def.topicFilters) {
    if (spec.kind === "unknown") {
      unknownFilter ??= connector;
      continue;
    }
    const verdict = judgeTopic(spec.filter, def.policy, def, topic.name);
    if (verdict.replicated) return { member: true, connector: nameCopier(def, connector) };
    reasons.push(def.topicFilters.length > 1 ? `${connector}: ${verdict.reason}` : verdict.reason);
  }
  if (def.topicFilters.length === 0 || unknownFilter !== null) {
    const internal = topic.internal || def.policy.isInternalTopic(topic.name);
    const copied = ctx.positionTopics.has(topic.name) || (!internal && hasRenamedRemote(def, topic.name, ctx));
    return copied ? { member: true, connector: nameCopier(def, unknownFilter) } : { member: false, reason: null };
  }
  return { member: false, reason: reasons.join("; ") };
}

/**
 * Whether the target holds the topic's remote topic under a name MM2 gave it. IdentityReplicationPolicy keeps names
 * (IdentityReplicationPolicy.formatRemoteTopic returns the topic), so a same-named target topic may be the target's
 * own (`__consumer_offsets`, a local `orders`): no sign that MM2 ever copied it.
 */
function hasRenamedRemote(def: FlowDefinition, topic: string, ctx: MembershipContext): boolean {
  const remote = def.policy.formatRemoteTopic(def.source, topic);
  return remote !== topic && ctx.targetTopics.has(remote);
}

/** Dedicated mode's MirrorSourceConnector is no Connect connector (its state is in the status topic): null. */
function nameCopier(def: FlowDefinition, connector: string | null): string | null {
  return def.discoveredFrom === "dedicated-topics" ? null : connector;
}

/**
 * Every source connector that takes `topic`: known filters by MirrorSourceConnector.shouldReplicateTopic, and those
 * whose filter Gapwatch cannot evaluate (they may). Several when filters overlap, or while a topic moves.
 */
export function listTakingConnectors(def: FlowDefinition, topic: string): string[] {
  const takers: string[] = [];
  for (const { connector, spec } of def.topicFilters) {
    if (spec.kind === "unknown" || judgeTopic(spec.filter, def.policy, def, topic).replicated) takers.push(connector);
  }
  return takers;
}

/**
 * Source topics MM2's filter leaves out although MM2 once copied them (Connect holds positions, or
 * the remote topic exists on the target under a renamed name), with the reason and the positions Connect still holds.
 */
export function listExcludedTopics(
  def: FlowDefinition,
  excluded: readonly { topic: TopicState; reason: string | null }[],
  ctx: MembershipContext,
  positions: ReadonlyMap<string, bigint> | null,
): ExcludedTopic[] {
  const result: ExcludedTopic[] = [];
  for (const { topic, reason } of excluded) {
    if (reason === null) continue;
    const heldPositions = topic.partitions.filter((p) => positions?.has(`${topic.name}/${p.partition}`)).length;
    if (heldPositions > 0 || hasRenamedRemote(def, topic.name, ctx)) result.push({ topic: topic.name, reason, heldPositions });
  }
  return result.sort((a, b) => a.topic.localeCompare(b.topic));
}
