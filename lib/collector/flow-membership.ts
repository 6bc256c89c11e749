import { judgeTopic } from "@/lib/mm2";
import type { FlowDefinition } from "./flow-discovery";
import type { ExcludedTopic, TopicState } from "./types";

/** Whether a source topic is in the flow now, and which source connector copies it. */
export type MembershipVerdict = { member: true; connector: string | null } | { member: false; reason: string | null };

/** What the cycle read that membership depends on. */
export interface MembershipContext {
  /** Topic names on the target cluster. */
  targetTopics: ReadonlySet<string>;
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
 *   on the target (with IdentityReplicationPolicy `__consumer_offsets` exists on both sides, yet MM2
 *   never copies it);
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
    const targetTopic = def.policy.formatRemoteTopic(def.source, topic.name);
    const internal = topic.internal || def.policy.isInternalTopic(topic.name);
    const copied = ctx.positionTopics.has(topic.name) || (!internal && ctx.targetTopics.has(targetTopic));
    return copied ? { member: true, connector: nameCopier(def, unknownFilter) } : { member: false, reason: null };
  }
  return { member: false, reason: reasons.join("; ") };
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
 * the remote topic exists on the target), with the reason and the positions Connect still holds.
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
    const remote = ctx.targetTopics.has(def.policy.formatRemoteTopic(def.source, topic.name));
    if (heldPositions > 0 || remote) result.push({ topic: topic.name, reason, heldPositions });
  }
  return result.sort((a, b) => a.topic.localeCompare(b.topic));
}
