/** The sandbox runs MM2 with DefaultReplicationPolicy: `orders` from `east` is `east.orders` on the target. */
export function formatRemoteTopicName(source: string, topic: string, separator = "."): string {
  return `${source}${separator}${topic}`;
}
