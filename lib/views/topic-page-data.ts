import type { Flow, Snapshot } from "@/lib/collector/types";
import { formatCount } from "@/lib/format";
import { flowPath } from "./flow-page";
import { listFlowTopicPartitions, shapePartitionRows } from "./topic";
import { packPartitionRows, type PartitionRowColumns } from "./topic-row-columns";

/**
 * What the topic page shows of one topic besides its URL: the header's figures and the partition rows. The page's
 * HTML is one shell for every topic of a flow (the response cache fills in the topic's name: topic-shell.ts); its
 * client component fetches this from `topicPageDataPath` and shows it. Client-safe types; pure.
 */
export interface TopicPageData {
  topic: string;
  /** The snapshot these figures come from (ms since the epoch). */
  takenAt: number;
  /** The topic's name on the target cluster ("?" when no partition is listed). */
  targetTopic: string;
  target: string;
  partitions: number;
  /** The partitions' summed lag, formatted ("1,234"). */
  lag: string;
  rows: PartitionRowColumns;
}

/**
 * A topic name whose every character is one Kafka allows (`[a-zA-Z0-9._-]`, Kafka's Topic.validate): it reads the
 * same in a URL, in HTML and in a JavaScript string, so a shell can be filled with it by plain substitution.
 */
export const plainTopicName = /^[A-Za-z0-9._-]{1,249}$/;

/**
 * The topic a shell render is made for (never a real topic: the page skips its existence check for this one name and
 * shows no data); the response cache replaces it by the asked topic's name.
 */
export const shellTopicPlaceholder = "gapwatch-shell-topic-3f9c27d1";

/** The path of a topic's page data (served by the response cache, or by its Next.js route when it cannot). */
export function topicPageDataPath(flowId: string, topic: string): string {
  return `/api${flowPath(flowId, "topics", topic)}/page-data`;
}

/** Per snapshot, per flow: the page data of each topic asked for (one per topic and cycle, shared: do not mutate). */
const dataOf = new WeakMap<Snapshot, WeakMap<Flow, Map<string, TopicPageData | null>>>();

/** The topic page's data of `topic`, or null when the flow lists no partition of it (the page's 404). */
export function shapeTopicPageData(snapshot: Snapshot, flow: Flow, topic: string): TopicPageData | null {
  let byFlow = dataOf.get(snapshot);
  if (!byFlow) dataOf.set(snapshot, (byFlow = new WeakMap()));
  let byTopic = byFlow.get(flow);
  if (!byTopic) byFlow.set(flow, (byTopic = new Map()));
  let data = byTopic.get(topic);
  if (data === undefined) byTopic.set(topic, (data = buildPageData(snapshot, flow, topic)));
  return data;
}

function buildPageData(snapshot: Snapshot, flow: Flow, topic: string): TopicPageData | null {
  const partitions = listFlowTopicPartitions(flow, topic);
  if (partitions.length === 0) return null;
  const lag = partitions.reduce((sum, p) => sum + (p.lag ?? 0n), 0n);
  return {
    topic,
    takenAt: snapshot.takenAt,
    targetTopic: partitions[0]?.targetTopic ?? "?",
    target: flow.target,
    partitions: partitions.length,
    lag: formatCount(lag),
    rows: packPartitionRows(shapePartitionRows(snapshot, flow, topic)),
  };
}
