import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";

/** Unknown partition number: says which partitions the topic has ("0–5"), and links back to the topic. */
export function PartitionNotFound({ topic, partition, partitions, topicHref }: { topic: string; partition: string; partitions: string; topicHref: string }) {
  return (
    <EmptyState tone="warn" title={`Topic ${topic} has no replicated partition "${partition}"`} data-testid="partition-not-found">
      <p>{partitions === "" ? "This topic has no replicated partitions Gapwatch knows of." : `It has partitions ${partitions}.`}</p>
      <p>
        Pick one on <TextLink href={topicHref}>the topic&apos;s page</TextLink>.
      </p>
    </EmptyState>
  );
}
