/**
 * A flow's topic runs (FlowColumns.topicRunStarts: a topic's partitions are listed together) with their topics and
 * where those are among a cluster's topics (readTopicPositions), for the rules that ask per topic, not per partition
 * (posture-risks.ts, topic-drift.ts). Kept per flow id from one cycle to the next while its runs name the same topics
 * and the cluster's map is the same object (kept while the cluster's names stay, cluster-columns.ts): at 100,000
 * partitions on 18,000 topics a cycle then looks up no name and builds no set of names.
 */
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { readPartitionTopic } from "@/lib/collector/flow-rows";
import type { Flow } from "@/lib/collector/types";
import type { TopicPositions } from "./cluster-columns";

/** Per run of a flow: its topic and target topic (its first partition's), and which runs repeat an earlier topic. */
export interface TopicRuns {
  topics: readonly string[];
  targetTopics: readonly string[];
  /** 1 where an earlier run has the same (source) topic. */
  repeated: Uint8Array;
}

/** Which of a run's topics is located: its topic in the flow's source cluster, its target topic in the target. */
export type RunSide = "source" | "target";

interface KeptRuns extends TopicRuns {
  /** Per side, the last map located against and, per run, the topic's position in it (−1: not there). */
  located: Record<RunSide, { positions: TopicPositions; at: Int32Array } | null>;
}

/** The runs last read per flow id. */
const keptRuns = new Map<string, KeptRuns>();
/** The runs a flow object was found to have (the rules of one cycle ask several times). */
const runsOfFlow = new WeakMap<Flow, KeptRuns>();

/** The flow's topic runs, in order. */
export function readTopicRuns(flow: Flow): TopicRuns {
  return readKeptRuns(flow);
}

/**
 * Per run, the position of its topic (`source`) or target topic (`target`) among the topics of `positions`' cluster,
 * the first of the name as `positions.byName` gives it; −1 where the cluster has no topic of the name.
 */
export function locateTopicRuns(flow: Flow, positions: TopicPositions, side: RunSide): Int32Array {
  const runs = readKeptRuns(flow);
  const held = runs.located[side];
  if (held !== null && held.positions === positions) return held.at;
  const names = side === "source" ? runs.topics : runs.targetTopics;
  const at = new Int32Array(names.length);
  for (let r = 0; r < names.length; r++) at[r] = positions.byName.get(names[r]!) ?? -1;
  runs.located[side] = { positions, at };
  return at;
}

function readKeptRuns(flow: Flow): KeptRuns {
  const known = runsOfFlow.get(flow);
  if (known !== undefined) return known;
  const starts = readFlowColumns(flow).topicRunStarts;
  const last = keptRuns.get(flow.id);
  let runs: KeptRuns;
  if (last !== undefined && hasSameRuns(last, flow, starts)) runs = last;
  else keptRuns.set(flow.id, (runs = listRuns(flow, starts)));
  runsOfFlow.set(flow, runs);
  return runs;
}

/** Whether the flow's runs name `runs`' topics and target topics, run by run. */
function hasSameRuns(runs: TopicRuns, flow: Flow, starts: Int32Array): boolean {
  if (runs.topics.length !== starts.length) return false;
  for (let r = 0; r < starts.length; r++) {
    const p = readPartitionTopic(flow, starts[r]!);
    if (p.topic !== runs.topics[r] || p.targetTopic !== runs.targetTopics[r]) return false;
  }
  return true;
}

function listRuns(flow: Flow, starts: Int32Array): KeptRuns {
  const topics = new Array<string>(starts.length);
  const targetTopics = new Array<string>(starts.length);
  const repeated = new Uint8Array(starts.length);
  const seen = new Set<string>();
  for (let r = 0; r < starts.length; r++) {
    const p = readPartitionTopic(flow, starts[r]!);
    topics[r] = p.topic;
    targetTopics[r] = p.targetTopic;
    if (seen.has(p.topic)) repeated[r] = 1;
    else seen.add(p.topic);
  }
  return { topics, targetTopics, repeated, located: { source: null, target: null } };
}
