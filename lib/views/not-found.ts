import type { Snapshot } from "@/lib/collector/types";
import type { ReadModel } from "@/lib/pipeline/read-model";
import type { FlowTranslation } from "@/lib/translation";
import { decodePathSegment } from "./flow-page";
import { shellTopicPlaceholder } from "./topic-page-data";

/**
 * What a 404 page under /flows/<flow> needs to say what exists instead. Next.js renders not-found.tsx without
 * the page's params, so the page that calls notFound() cannot hand it the reason: the not-found page gets this
 * index (built from the latest cycle, capped per flow) and the browser's route params, and explains from both.
 */
export interface NotFoundIndex {
  flows: NotFoundFlow[];
}

interface NotFoundFlow {
  id: string;
  /** Source topics the flow replicates, by name, with their partitions ("0–5"). */
  topics: { name: string; partitions: string }[];
  moreTopics: number;
  /** Groups MM2 checkpoints on the flow, and groups its groups filter leaves out. */
  groups: string[];
  moreGroups: number;
  excludedGroups: string[];
}

/** Names listed per flow on a 404 page (the page stays small at 100,000 partitions). */
export const notFoundListLimit = 200;

/**
 * Next.js renders a segment's not-found.tsx with every page under it (the fallback of its not-found boundary), so
 * every /flows/… request would index all the flow's partitions (10,000 sorted names): once per read model instead.
 */
const indexes = new WeakMap<ReadModel, NotFoundIndex>();

/** The index of what exists in a read model's cycle, built on first use. */
export function readNotFoundIndex(model: ReadModel): NotFoundIndex {
  let index = indexes.get(model);
  if (!index) indexes.set(model, (index = buildNotFoundIndex(model.snapshot, model.translations)));
  return index;
}

/** The index of what exists, from the latest cycle's snapshot and translations. */
export function buildNotFoundIndex(snapshot: Snapshot, translations: ReadonlyMap<string, FlowTranslation>): NotFoundIndex {
  return {
    flows: snapshot.flows.map((flow) => {
      const byTopic = new Map<string, number[]>();
      for (const p of flow.partitions) {
        const list = byTopic.get(p.topic);
        if (list) list.push(p.partition);
        else byTopic.set(p.topic, [p.partition]);
      }
      const topics = [...byTopic].sort(([a], [b]) => a.localeCompare(b)).map(([name, ps]) => ({ name, partitions: describeNumbers(ps.sort((a, b) => a - b)) }));
      const ft = translations.get(flow.id);
      const groups = (ft?.groups.map((g) => g.group) ?? []).sort();
      return {
        id: flow.id,
        topics: topics.slice(0, notFoundListLimit),
        moreTopics: Math.max(0, topics.length - notFoundListLimit),
        groups: groups.slice(0, notFoundListLimit),
        moreGroups: Math.max(0, groups.length - notFoundListLimit),
        excludedGroups: (ft?.excludedGroups ?? []).slice(0, notFoundListLimit),
      };
    }),
  };
}

/** "0–5", or "0–3, 7" when the numbers (ascending) have holes. */
export function describeNumbers(numbers: readonly number[]): string {
  const runs: string[] = [];
  let start = numbers[0];
  for (let i = 1; i <= numbers.length; i++) {
    const prev = numbers[i - 1]!;
    if (i < numbers.length && numbers[i] === prev + 1) continue;
    runs.push(start === prev ? String(prev) : `${start}–${prev}`);
    start = numbers[i];
  }
  return runs.join(", ");
}

/**
 * The request header the proxy (proxy.ts) puts the request's path in. Next.js renders a segment's not-found.tsx with
 * every page under it and without the page's params; with the path, it explains the one URL asked for instead of
 * handing every page's payload the whole index to explain any URL in the browser (14 KB of a topic page's 29.5 KB
 * RSC payload at 10,000 partitions, ~22 % of its render CPU).
 */
export const requestPathHeader = "x-gapwatch-path";

/** The route params a path under /flows/<flow> names (segments still URL-encoded); {} for any other path. */
export function parseFlowRoutePath(path: string): FlowRouteParams {
  const [first, flow, section, name, partition] = path.split("/").filter((segment) => segment !== "");
  if (first !== "flows" || flow === undefined) return {};
  if (section === "groups" && name !== undefined) return { flow, group: name };
  if (section === "topics" && name !== undefined) return partition === undefined ? { flow, topic: name } : { flow, topic: name, partition };
  return { flow };
}

/** The route params of a page under /flows/<flow> (URL-encoded or not). */
export interface FlowRouteParams {
  flow?: string;
  topic?: string;
  partition?: string;
  group?: string;
}

/** Which part of a /flows/… URL names nothing, and what exists there instead. */
export type NotFoundExplanation =
  | { missing: "flow"; flow: string; known: string[] }
  | { missing: "group"; flow: string; group: string; groups: string[]; moreGroups: number; excluded: boolean }
  | { missing: "topic"; flow: string; topic: string; topics: string[]; moreTopics: number }
  | { missing: "partition"; flow: string; topic: string; partition: string; partitions: string }
  | { missing: "unknown" };

/** Resolves, outermost first, the first path segment that names nothing in the index. */
export function explainNotFound(index: NotFoundIndex, params: FlowRouteParams): NotFoundExplanation {
  if (params.flow === undefined) return { missing: "unknown" };
  const flowId = decodePathSegment(params.flow);
  const flow = index.flows.find((f) => f.id === flowId);
  if (!flow) return { missing: "flow", flow: flowId, known: index.flows.map((f) => f.id) };
  if (params.group !== undefined) {
    const group = decodePathSegment(params.group);
    if (flow.groups.includes(group)) return { missing: "unknown" };
    return { missing: "group", flow: flow.id, group, groups: flow.groups, moreGroups: flow.moreGroups, excluded: flow.excludedGroups.includes(group) };
  }
  if (params.topic === undefined) return { missing: "unknown" };
  const topicName = decodePathSegment(params.topic);
  // The topic page's shell (lib/api/topic-shell.ts) is the page of every listed topic: explained as a listed one.
  if (topicName === shellTopicPlaceholder && params.partition === undefined) return { missing: "unknown" };
  const topic = flow.topics.find((t) => t.name === topicName);
  // Beyond the listed topics the index cannot tell: it then says the partition is missing, linking to the topic.
  if (!topic && flow.moreTopics === 0) return { missing: "topic", flow: flow.id, topic: topicName, topics: flow.topics.map((t) => t.name), moreTopics: 0 };
  if (params.partition === undefined) {
    return topic ? { missing: "unknown" } : { missing: "topic", flow: flow.id, topic: topicName, topics: flow.topics.map((t) => t.name), moreTopics: flow.moreTopics };
  }
  return { missing: "partition", flow: flow.id, topic: topicName, partition: decodePathSegment(params.partition), partitions: topic?.partitions ?? "" };
}
