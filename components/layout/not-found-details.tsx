import { FlowNotFound } from "@/components/flow/flow-not-found";
import { PartitionNotFound } from "@/components/partition/partition-not-found";
import { TopicNotFound } from "@/components/topic/topic-not-found";
import { EmptyState } from "@/components/ui/empty-state";
import { TextLink } from "@/components/ui/text-link";
import { flowPath } from "@/lib/views/flow-page";
import type { NotFoundExplanation } from "@/lib/views/not-found";

/** The body of a 404 under /flows/<flow>: which part of the URL names nothing, and what exists instead. */
export function NotFoundDetails({ why }: { why: NotFoundExplanation }) {
  switch (why.missing) {
    case "flow":
      return <FlowNotFound id={why.flow} known={why.known} />;
    case "topic":
      return <TopicNotFound flowId={why.flow} topic={why.topic} topics={why.topics} more={why.moreTopics} />;
    case "partition":
      return <PartitionNotFound topic={why.topic} partition={why.partition} partitions={why.partitions} topicHref={flowPath(why.flow, "topics", why.topic)} />;
    case "group":
      return (
        <EmptyState tone="warn" title={`MM2 does not checkpoint a group "${why.group}" on ${why.flow}`} data-testid="group-not-found">
          <p>{why.excluded ? "The group exists but the checkpoint connector's groups filter leaves it out." : "No group with that id has committed offsets on a topic this flow replicates."}</p>
          <p>
            <TextLink href={flowPath(why.flow, "groups")}>See the {why.groups.length + why.moreGroups} checkpointed group(s)</TextLink>
          </p>
        </EmptyState>
      );
    default:
      return (
        <EmptyState tone="warn" title="Nothing here" data-testid="page-not-found">
          <p>
            This page does not exist. Go to <TextLink href="/">the overview</TextLink>.
          </p>
        </EmptyState>
      );
  }
}
