import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";

/** Unknown partition number: lists the partitions the topic has. */
export function PartitionNotFound({ topic, partition, partitions, topicHref }: { topic: string; partition: string; partitions: number[]; topicHref: string }) {
  return (
    <EmptyState tone="warn" title={`Topic ${topic} has no replicated partition "${partition}"`} data-testid="partition-not-found">
      <p>{partitions.length === 0 ? "This topic has no replicated partitions." : `It has partitions 0–${Math.max(...partitions)}. Pick one:`}</p>
      <ul className="flex flex-wrap gap-x-3 gap-y-1 font-mono">
        {partitions.slice(0, 200).map((p) => (
          <li key={p}>
            <TextLink href={`${topicHref}/${p}`}>{p}</TextLink>
          </li>
        ))}
      </ul>
      <p>
        Or go back to <TextLink href={topicHref}>the topic</TextLink>.
      </p>
    </EmptyState>
  );
}
