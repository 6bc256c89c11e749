/**
 * The ACLs Gapwatch needs, derived from the requests lib/kafka sends (api-versions.ts lists them) and Kafka's
 * authorization of each (KafkaApis / AclAuthorizer rules, as in Kafka's "Authorization using ACLs" table). Pure:
 * the `acls` script prints them, the blind-spot view names the one that fixes a denied read.
 */
import type { GapwatchConfig } from "@/lib/config";

export type AclResourceType = "cluster" | "topic" | "group";
export type AclOperation = "Describe" | "DescribeConfigs" | "Read" | "Create";
export type AclPatternType = "literal" | "prefixed";

/** What a read that lacks an ACL hides: a detector or figure, named for the operator. */
export type BlindSpotKind = "group-list" | "broker-configs" | "topic-metadata" | "topic-configs" | "topic-records" | "group-offsets" | "scale-out";

/** One ACL: an operation allowed on a resource pattern, with why Gapwatch needs it. */
export interface AclRule {
  kind: BlindSpotKind;
  resourceType: AclResourceType;
  /** `kafka-cluster` for the cluster resource; `*` (literal) means every topic or group. */
  resourceName: string;
  patternType: AclPatternType;
  operation: AclOperation;
  /** The requests this ACL authorizes. */
  apis: string[];
  why: string;
  /** What goes blind without it. */
  blindWithout: string;
}

/** The ACLs of one cluster. */
export interface ClusterAcls {
  cluster: string;
  bootstrap: string[];
  rules: AclRule[];
}

/** The Cluster resource's only name in Kafka (Resource.CLUSTER_NAME). */
export const clusterResourceName = "kafka-cluster";

/**
 * Every cluster gets the same read ACLs: the config does not say which clusters are MM2 sources or targets (flows are
 * discovered at run time) nor which topics MM2's filter takes, and Gapwatch fetches from source topics (oldest
 * unreplicated record, transaction markers), remote topics (target density) and MM2's internal topics alike. Topics
 * and groups are therefore the literal wildcard `*`; only the scale-out group and topic are named exactly.
 */
const everyClusterRules: readonly AclRule[] = [
  {
    kind: "group-list",
    resourceType: "cluster",
    resourceName: clusterResourceName,
    patternType: "literal",
    operation: "Describe",
    apis: ["ListGroups"],
    why: "ListGroups returns every group, so a group Gapwatch may not describe is named instead of hidden",
    blindWithout: "groups without Describe vanish from ListGroups instead of showing as unreadable",
  },
  {
    kind: "broker-configs",
    resourceType: "cluster",
    resourceName: clusterResourceName,
    patternType: "literal",
    operation: "DescribeConfigs",
    apis: ["DescribeConfigs (broker)"],
    why: "the broker's unclean.leader.election.enable, the default of topics without an override",
    blindWithout: "the unclean-election posture risk of topics without their own override",
  },
  {
    kind: "topic-configs",
    resourceType: "topic",
    resourceName: "*",
    patternType: "literal",
    operation: "DescribeConfigs",
    apis: ["DescribeConfigs (topics)"],
    why: "cleanup.policy, retention, min.insync.replicas, max.message.bytes, unclean.leader.election.enable",
    blindWithout: "the exact sync-gap DATA_LOSS signal (compaction unknown), RETENTION_RISK and the topic settings checks",
  },
  {
    kind: "topic-records",
    resourceType: "topic",
    resourceName: "*",
    patternType: "literal",
    operation: "Read",
    apis: ["Metadata", "ListOffsets", "OffsetForLeaderEpoch", "DescribeTopicPartitions", "OffsetFetch (partitions)", "Fetch (group-less)"],
    // Kafka's authorizers imply Describe from Read (AclEntry.supportedOperations; StandardAuthorizer's implied ops):
    // a separate Describe on topics would grant nothing more.
    why: "topics, partitions, log offsets and leader epochs (Read implies Describe); MM2's offset syncs, checkpoints, heartbeats and internal topics, source tails",
    blindWithout: "topics vanish from Metadata (positions, lag, DATA_LOSS, TOPIC_RESET, UNCLEAN_TRUNCATION) and MM2's internal topics go unread",
  },
  {
    kind: "group-offsets",
    resourceType: "group",
    resourceName: "*",
    patternType: "literal",
    operation: "Describe",
    apis: ["FindCoordinator", "DescribeGroups", "ConsumerGroupDescribe", "OffsetFetch", "DescribeShareGroupOffsets"],
    why: "consumer groups' state and committed offsets",
    blindWithout: "committed offsets: failover re-read counts, OFFSET_OUT_OF_RANGE and target group checks for the groups",
  },
];

/**
 * The ACLs Gapwatch's principal needs on each configured cluster, and nothing more; with `scaleOut`, the home
 * cluster also lets the collectors join their group (JoinGroup, SyncGroup, Heartbeat: Read on the group) and create
 * the shard topic when missing (CreateTopics: Create on the topic).
 */
export function planAcls(config: Pick<GapwatchConfig, "clusters" | "scaleOut">): ClusterAcls[] {
  return config.clusters.map((cluster) => {
    const scaleOut = config.scaleOut?.homeCluster === cluster.alias ? config.scaleOut : undefined;
    const shardRules: AclRule[] = scaleOut === undefined ? [] : [
      {
        kind: "scale-out",
        resourceType: "group",
        resourceName: scaleOut.groupId,
        patternType: "literal",
        operation: "Read",
        apis: ["JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup"],
        why: "collectors share the shards through this group (scaleOut.groupId)",
        blindWithout: "collectors cannot hold shards: no flow is polled",
      },
      {
        kind: "scale-out",
        resourceType: "topic",
        resourceName: scaleOut.topic,
        patternType: "literal",
        operation: "Create",
        apis: ["CreateTopics"],
        why: "the shard topic (scaleOut.topic) is created when missing",
        blindWithout: "the first collector cannot create the shard topic (create it by hand instead)",
      },
    ];
    return { cluster: cluster.alias, bootstrap: cluster.bootstrap, rules: [...everyClusterRules, ...shardRules] };
  });
}

/** What each blind spot hides (the rules' own `blindWithout`, and topics hidden from Metadata). */
const hiddenByKind: Partial<Record<BlindSpotKind, string>> = {
  "topic-metadata": "positions, lag, DATA_LOSS, TOPIC_RESET and UNCLEAN_TRUNCATION for the topics (Kafka hides them from Metadata)",
  "topic-records": "offset-sync positions and the exact DATA_LOSS range, checkpoints and failover re-reads, heartbeats, lag age",
};

/** What blind spot `kind` hides, for the operator. */
export function describeHidden(kind: BlindSpotKind): string {
  return hiddenByKind[kind] ?? findRule(kind).blindWithout;
}

/**
 * The every-cluster rule that fixes blind spot `kind` (throws for `scale-out`, which is per cluster). A topic hidden
 * from Metadata lacks Describe, which Gapwatch gets through Read on topics (Read implies Describe).
 */
export function findRule(kind: BlindSpotKind): AclRule {
  const ruleKind = kind === "topic-metadata" ? "topic-records" : kind;
  const rule = everyClusterRules.find((r) => r.kind === ruleKind);
  if (rule === undefined) throw new Error(`no ACL rule for ${kind}`);
  return rule;
}

/**
 * Gapwatch's principal on a cluster as the broker names it: `User:<username>` for SASL PLAIN/SCRAM. Otherwise it
 * cannot be known here: OAUTHBEARER's is the token's subject claim (`sasl.oauthbearer.sub.claim.name`, often the
 * client id), mTLS's the certificate's distinguished name mapped by `ssl.principal.mapping.rules`, and an MSK IAM
 * cluster authorizes with IAM policies, not ACLs (docs/authentication-oauth.md).
 */
export function principalOf(cluster: GapwatchConfig["clusters"][number]): string {
  const sasl = cluster.sasl;
  if (sasl === undefined) return "User:<gapwatch principal>";
  if (sasl.mechanism === "OAUTHBEARER") return `User:<subject of client ${sasl.clientId}'s tokens>`;
  if (sasl.mechanism === "AWS_MSK_IAM") return "User:<IAM role: grant an IAM policy instead of ACLs>";
  return `User:${sasl.username}`;
}
