import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";
import { flowPath } from "@/lib/views/flow-page";

/** Unknown topic in a known flow: lists the topics the flow does replicate (the first ones, and how many more). */
export function TopicNotFound({ flowId, topic, topics, more }: { flowId: string; topic: string; topics: string[]; more: number }) {
  return (
    <EmptyState tone="warn" title={`Flow ${flowId} does not replicate a topic "${topic}"`} data-testid="topic-not-found">
      <p>Use the upstream (source) topic name. The topics this flow replicates:</p>
      {topics.length === 0 ? (
        <p>None yet — check the source connector&apos;s topics filter.</p>
      ) : (
        <ul className="flex flex-wrap gap-x-4 gap-y-1">
          {topics.map((t) => (
            <li key={t}>
              <TextLink href={flowPath(flowId, "topics", t)} className="font-mono">
                {t}
              </TextLink>
            </li>
          ))}
        </ul>
      )}
      {more > 0 ? <p>… and {more} more: search them on the flow&apos;s page.</p> : null}
      <p>
        Or go back to <TextLink href={flowPath(flowId)}>the flow</TextLink>.
      </p>
    </EmptyState>
  );
}
