import type { Flow, Snapshot } from "@/lib/collector/types";
import { formatCount } from "@/lib/format";
import type { TopicRow } from "./flows";
import { decodeFlowParam } from "./params";
import type { SparkPoint } from "./topic-sparklines";

/** A flow looked up from its URL segment: found, or missing with the flows that do exist. */
export type FlowLookup = { found: true; flow: Flow } | { found: false; id: string; known: string[] };

/** Finds the flow a `[flow]` path segment names; a malformed or unknown id is "missing", not an error. */
export function lookupFlow(snapshot: Snapshot, rawParam: string): FlowLookup {
  let id: string;
  try {
    id = decodeFlowParam(rawParam);
  } catch {
    return { found: false, id: decodePathSegment(rawParam), known: snapshot.flows.map((f) => f.id) };
  }
  const flow = snapshot.flows.find((f) => f.id === id);
  return flow ? { found: true, flow } : { found: false, id, known: snapshot.flows.map((f) => f.id) };
}

/** decodeURIComponent that returns the input unchanged when it is not valid percent-encoding. */
export function decodePathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** One topic row of the flow page, shaped for its table (numbers and strings only: the sparkline is client code). */
export interface FlowTopicRowView {
  topic: string;
  targetTopic: string;
  partitions: number;
  sourceLogEnd: string;
  targetLogEnd: string;
  /** For the row's colour; exact value in `lagText`. */
  lag: number;
  lagText: string;
  unknownPositions: number;
  /** Partitions whose data could not be read this cycle. */
  unknownPartitions: number;
  internal: boolean;
  /** The topic's lag per sparkline bucket, oldest first (numbers only: the shown rows' 60 points stay small). */
  spark: number[];
}

/** Topic rows with each topic's lag sparkline over the selected range (lib/views/topic-sparklines.ts). */
export function shapeFlowTopicRows(topics: readonly TopicRow[], sparks: ReadonlyMap<string, SparkPoint[]>): FlowTopicRowView[] {
  return topics.map((t) => ({
    topic: t.topic,
    targetTopic: t.targetTopic,
    partitions: t.partitions,
    sourceLogEnd: formatCount(t.sourceLogEnd),
    targetLogEnd: formatCount(t.targetLogEnd),
    lag: Number(t.lag),
    lagText: formatCount(t.lag),
    unknownPositions: t.unknownPositions,
    unknownPartitions: t.unknownPartitions,
    internal: t.internal,
    spark: (sparks.get(t.topic) ?? []).map((p) => p.lag),
  }));
}

/** Path of a flow's pages: `/flows/<flow>[/<segment>…]`, each segment URL-encoded. */
export function flowPath(flowId: string, ...rest: (string | number)[]): string {
  return ["/flows", encodeURIComponent(flowId), ...rest.map((s) => encodeURIComponent(String(s)))].join("/");
}
