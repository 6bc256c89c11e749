/**
 * Which consumer group types MirrorMaker 2 checkpoints. MirrorCheckpointConnector (Kafka 4.3.1) finds
 * groups with `Admin.listGroups(ListGroupsOptions.forConsumerGroups())`, i.e. types classic and consumer
 * (KIP-848) only. Streams groups (KIP-1071) and share groups (KIP-932) are never listed: no checkpoint
 * in `<source>.checkpoints.internal`, no offsets synced to the target (seen in the sandbox with a real
 * Kafka Streams app and Kafka's console share consumer: tests/integration/kafka/group-types.test.ts).
 */
const checkpointedGroupTypes: ReadonlySet<string> = new Set(["classic", "consumer"]);

/** True for the group types MM2 checkpoints (and Gapwatch translates). */
export function isCheckpointedGroupType(groupType: string): boolean {
  return checkpointedGroupTypes.has(groupType);
}

/** What happens to a group of a type MM2 does not checkpoint when its consumers move to the target. */
export function explainUncheckpointedGroup(groupType: string): string {
  if (groupType === "streams") {
    return "MM2 does not checkpoint this group (a Kafka Streams group, KIP-1071): after failover it restarts from its reset policy (auto.offset.reset) on the target.";
  }
  if (groupType === "share") {
    return "MM2 does not checkpoint this group (a share group, KIP-932): after failover it restarts from its reset policy (the group config share.auto.offset.reset, default latest) on the target.";
  }
  return `MM2 does not checkpoint this group (type ${groupType}): after failover it restarts from its reset policy on the target.`;
}
