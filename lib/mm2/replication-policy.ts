/**
 * MM2 topic naming, mirrored from apache/kafka connect/mirror-client/src/main/java/org/apache/kafka/
 * connect/mirror/{ReplicationPolicy,DefaultReplicationPolicy,IdentityReplicationPolicy}.java
 * (Default @020aaced with KIP-690's internal-separator flag, Identity @0dc94e37, interface
 * @ef94af1e and the KAFKA-17200 revision), plus where MM2 keeps its internal topics.
 *
 * Internal-topic rule by Kafka version (`internalTopicRule`):
 * - "kafka-3" (default; Kafka 3.x): isMM2InternalTopic = ends with `<sep>internal`; isInternalTopic
 *   = that, or ends with ".internal" / "-internal", or starts with "__" / ".".
 * - "kafka-4" (KAFKA-17200, PR #17815, merged Nov 2024 for 4.0): isMM2InternalTopic = starts with
 *   "mm2" and ends with `<sep>internal`, or is a checkpoints topic; isInternalTopic = that, or starts
 *   with "__" / ".". User topics such as `orders.internal` are replicated again.
 * Heartbeats are not internal in Kafka (MM2 replicates them on purpose); see isHeartbeatsTopic.
 */

/** Which Kafka generation's isInternalTopic to mirror. */
export type InternalTopicRule = "kafka-3" | "kafka-4";

/** Options shared by both policies (MirrorClientConfig names in comments). */
export interface ReplicationPolicyOptions {
  /** `replication.policy.separator`, default ".". */
  separator?: string;
  /** `replication.policy.internal.topic.separator.enabled`, default true (KIP-690). */
  internalTopicSeparatorEnabled?: boolean;
  internalTopicRule?: InternalTopicRule;
  /** IdentityReplicationPolicy only: `source.cluster.alias`, what topicSource returns. */
  sourceClusterAlias?: string;
}

/** A replication policy: pure functions over topic names. */
export interface ReplicationPolicy {
  readonly kind: "default" | "identity";
  readonly separator: string;
  /** The name of `topic` from `sourceClusterAlias` on the target cluster. */
  formatRemoteTopic(sourceClusterAlias: string, topic: string): string;
  /** Source cluster alias of a remote topic, or null when it is not one. */
  topicSource(topic: string): string | null;
  /** The topic's name one hop upstream, or null when it is not a remote topic. */
  upstreamTopic(topic: string): string | null;
  /** The name on the cluster where it originated, after any number of hops. */
  originalTopic(topic: string): string;
  heartbeatsTopic(): string;
  offsetSyncsTopic(clusterAlias: string): string;
  checkpointsTopic(clusterAlias: string): string;
  isHeartbeatsTopic(topic: string): boolean;
  isCheckpointsTopic(topic: string): boolean;
  isMM2InternalTopic(topic: string): boolean;
  isInternalTopic(topic: string): boolean;
}

const HEARTBEATS_TOPIC = "heartbeats";

/** Java Pattern.split semantics: literal separator, trailing empty strings removed. */
function splitLikeJava(topic: string, separator: string): string[] {
  const parts = topic.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** The policy a flow names (`Flow.replicationPolicy`): its kind and separator, for a flow from `source`. */
export function createReplicationPolicy(kind: "default" | "identity", separator: string, source: string): ReplicationPolicy {
  return kind === "identity"
    ? createIdentityReplicationPolicy({ separator, sourceClusterAlias: source })
    : createDefaultReplicationPolicy({ separator });
}

/** Creates a DefaultReplicationPolicy: remote topics are `<source><separator><topic>`. */
export function createDefaultReplicationPolicy(options: ReplicationPolicyOptions = {}): ReplicationPolicy {
  const separator = options.separator ?? ".";
  if (separator === "") throw new RangeError("replication.policy.separator must not be empty");
  const internalSeparator = options.internalTopicSeparatorEnabled === false ? "." : separator;
  const internalSuffix = `${internalSeparator}internal`;
  const checkpointsSuffix = `${internalSeparator}checkpoints${internalSuffix}`;
  const rule = options.internalTopicRule ?? "kafka-3";

  const topicSource = (topic: string): string | null => {
    const parts = splitLikeJava(topic, separator);
    return parts.length < 2 ? null : (parts[0] ?? null);
  };
  const upstreamTopic = (topic: string): string | null => {
    const source = topicSource(topic);
    return source === null ? null : topic.substring(source.length + separator.length);
  };
  const isCheckpointsTopic = (topic: string): boolean => topic.endsWith(checkpointsSuffix);
  const isMM2InternalTopic = (topic: string): boolean =>
    rule === "kafka-4"
      ? (topic.startsWith("mm2") && topic.endsWith(internalSuffix)) || isCheckpointsTopic(topic)
      : topic.endsWith(internalSuffix);

  const policy: ReplicationPolicy = {
    kind: "default",
    separator,
    formatRemoteTopic: (source, topic) => `${source}${separator}${topic}`,
    topicSource,
    upstreamTopic,
    originalTopic: (topic) => findOriginalTopic(policy, topic),
    heartbeatsTopic: () => HEARTBEATS_TOPIC,
    offsetSyncsTopic: (alias) => `mm2-offset-syncs${internalSeparator}${alias}${internalSuffix}`,
    checkpointsTopic: (alias) => `${alias}${checkpointsSuffix}`,
    isHeartbeatsTopic: (topic) => policy.originalTopic(topic) === HEARTBEATS_TOPIC,
    isCheckpointsTopic,
    isMM2InternalTopic,
    isInternalTopic: (topic) => {
      const kafkaInternal = topic.startsWith("__") || topic.startsWith(".");
      const connectInternal = rule === "kafka-3" && (topic.endsWith(".internal") || topic.endsWith("-internal"));
      return isMM2InternalTopic(topic) || kafkaInternal || connectInternal;
    },
  };
  return policy;
}

/**
 * Creates an IdentityReplicationPolicy: topic names are unchanged, except heartbeats, which are
 * renamed like DefaultReplicationPolicy so MM2 can still tell where they came from.
 */
export function createIdentityReplicationPolicy(options: ReplicationPolicyOptions = {}): ReplicationPolicy {
  const base = createDefaultReplicationPolicy(options);
  // Java looksLikeHeartbeat: the name ends with the heartbeats topic name.
  const looksLikeHeartbeat = (topic: string): boolean => topic.endsWith(base.heartbeatsTopic());
  const policy: ReplicationPolicy = {
    ...base,
    kind: "identity",
    formatRemoteTopic: (source, topic) => (looksLikeHeartbeat(topic) ? base.formatRemoteTopic(source, topic) : topic),
    topicSource: (topic) => (looksLikeHeartbeat(topic) ? base.topicSource(topic) : (options.sourceClusterAlias ?? null)),
    upstreamTopic: (topic) => (looksLikeHeartbeat(topic) ? base.upstreamTopic(topic) : topic),
    originalTopic: (topic) => findOriginalTopic(policy, topic),
    isHeartbeatsTopic: (topic) => policy.originalTopic(topic) === HEARTBEATS_TOPIC,
  };
  return policy;
}

/** ReplicationPolicy.originalTopic: follow upstreamTopic until it is null or stops changing. */
function findOriginalTopic(policy: ReplicationPolicy, topic: string): string {
  let current = topic;
  for (;;) {
    const upstream = policy.upstreamTopic(current);
    if (upstream === null || upstream === current) return current;
    current = upstream;
  }
}

/** Where a flow's offset-syncs topic lives (`offset-syncs.topic.location`, default "source"). */
export interface OffsetSyncsTopicLocation {
  cluster: "source" | "target";
  topic: string;
}

/**
 * Locates the offset-syncs topic of flow source→target, as MirrorSourceConfig/MirrorCheckpointConfig
 * offsetSyncsTopic() do: on the source cluster it is named after the target alias, on the target
 * after the source alias.
 */
export function locateOffsetSyncsTopic(
  policy: ReplicationPolicy,
  flow: { source: string; target: string; location?: "source" | "target" },
): OffsetSyncsTopicLocation {
  const cluster = flow.location ?? "source";
  return { cluster, topic: policy.offsetSyncsTopic(cluster === "source" ? flow.target : flow.source) };
}

/** Internal topics of a flow on its target cluster: checkpoints and the replicated heartbeats. */
export function nameTargetTopics(policy: ReplicationPolicy, source: string): { checkpoints: string; heartbeats: string } {
  return {
    checkpoints: policy.checkpointsTopic(source),
    heartbeats: policy.formatRemoteTopic(source, policy.heartbeatsTopic()),
  };
}

/**
 * Dedicated-mode MM2 (MirrorMakerConfig.workerConfig) Connect topics on the target cluster, with the
 * default separator: `mm2-offsets.<source>.internal`, `mm2-status.…`, `mm2-configs.…`. Custom
 * separators (KAFKA-13397) and explicit `*.storage.topic` settings override these; take them from config.
 */
export function nameDedicatedModeTopics(source: string): { offsets: string; status: string; configs: string } {
  return {
    offsets: `mm2-offsets.${source}.internal`,
    status: `mm2-status.${source}.internal`,
    configs: `mm2-configs.${source}.internal`,
  };
}
