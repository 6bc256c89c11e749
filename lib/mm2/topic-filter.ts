/**
 * Which source topics a MirrorSourceConnector replicates, mirrored from apache/kafka
 * connect/mirror/.../DefaultTopicFilter.java and MirrorSourceConnector.shouldReplicateTopic (3.9):
 *   (topicFilter.shouldReplicateTopic(t) || policy.isHeartbeatsTopic(t))
 *     && !policy.isInternalTopic(t) && !isCycle(t)
 * DefaultTopicFilter is the include/exclude rule of name-filter.ts over `topics` (default `.*`)
 * and `topics.exclude` (default `.*[\-\.]internal, .*\.replica, __.*`). `topics.blacklist`, the
 * deprecated alias of `topics.exclude`, is honoured by Kafka 2.7–3.9 when `topics.exclude` is not
 * set and ignored since 4.0 (KAFKA-17529): with only the alias set, which filter MM2 applies depends
 * on its version, so the filter is unknown. So is any other `topic.filter.class`.
 */
import { compileNameFilter, type NameFilter } from "./name-filter";
import type { ReplicationPolicy } from "./replication-policy";

/** MM2's default `topics`. */
export const defaultTopicsInclude = ".*";

/** MM2's default `topics.exclude` (DefaultTopicFilter.TOPICS_EXCLUDE_DEFAULT). */
export const defaultTopicsExclude = ".*[\\-\\.]internal, .*\\.replica, __.*";

const defaultFilterClass = "org.apache.kafka.connect.mirror.DefaultTopicFilter";

/** A source connector's topic filter: one Gapwatch can evaluate, or not (and why). */
export type TopicFilterSpec =
  | { kind: "default"; topics: string; topicsExclude: string; filter: NameFilter }
  /** `subject`: the class, setting or patterns in question. */
  | { kind: "unknown"; subject: string; reason: string };

/** Reads a MirrorSourceConnector config's topic filter. */
export function readTopicFilter(config: Readonly<Record<string, string>>): TopicFilterSpec {
  const filterClass = config["topic.filter.class"]?.trim();
  if (filterClass && filterClass !== defaultFilterClass && filterClass !== "DefaultTopicFilter") {
    return { kind: "unknown", subject: filterClass, reason: `custom topic.filter.class ${filterClass}` };
  }
  const exclude = config["topics.exclude"];
  const alias = config["topics.blacklist"];
  if (exclude === undefined && alias !== undefined) {
    const reason = `topics.blacklist "${alias}" is applied by Kafka 2.7–3.9 and ignored since 4.0 (KAFKA-17529)`;
    return { kind: "unknown", subject: "topics.blacklist", reason };
  }
  const topics = config.topics ?? defaultTopicsInclude;
  const topicsExclude = exclude ?? defaultTopicsExclude;
  const filter = compileNameFilter(topics, topicsExclude);
  if (filter.invalid.length > 0) {
    const subject = filter.invalid.join(", ");
    return { kind: "unknown", subject, reason: `topic patterns that do not compile here: ${subject}` };
  }
  return { kind: "default", topics, topicsExclude, filter };
}

/** Whether MM2 replicates a topic, and if not, why (in words for an operator). */
export type TopicVerdict = { replicated: true } | { replicated: false; reason: string };

/** MirrorSourceConnector.shouldReplicateTopic for flow source→target with a known filter. */
export function judgeTopic(filter: NameFilter, policy: ReplicationPolicy, flow: { target: string }, topic: string): TopicVerdict {
  if (policy.isInternalTopic(topic)) return { replicated: false, reason: "an internal topic for the replication policy" };
  if (isCycle(policy, flow.target, topic)) {
    return { replicated: false, reason: `it came from ${flow.target} (MM2 never copies a topic back)` };
  }
  if (filter.matches(topic) || policy.isHeartbeatsTopic(topic)) return { replicated: true };
  return { replicated: false, reason: filter.included(topic) ? "excluded by topics.exclude" : "not matched by topics" };
}

/** MirrorSourceConnector.isCycle: the topic, or one of its upstream names, came from the target. */
function isCycle(policy: ReplicationPolicy, target: string, topic: string): boolean {
  for (let current = topic; ; ) {
    const source = policy.topicSource(current);
    if (source === null) return false;
    if (source === target) return true;
    const upstream = policy.upstreamTopic(current);
    // IdentityReplicationPolicy (and the like) cannot tell cycles apart.
    if (upstream === null || upstream === current) return false;
    current = upstream;
  }
}
