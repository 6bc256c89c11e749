import type { ReadinessItem, ReadinessRule } from "../readiness-rule";
import { makeOutcome } from "./outcome";
import { countPartitionsByTopic, findFreshCluster, indexTopics } from "./topic-index";

/**
 * Every source topic of the flow exists on the target with the same partition count (KAFKA-9981:
 * MM2 stops syncing a topic whose partition counts differ); a filter that matches nothing is not ready.
 */
export const topicsCheck: ReadinessRule = {
  id: "topics",
  title: "Topics on the target",
  check: ({ snapshot, flow }) => {
    // Heartbeats topics are copied whatever the filter says: a filter that takes nothing else copies no data.
    if (flow.partitions.length === 0 || flow.coverage?.matchedByFilter === 0) {
      const coverage = { text: "topic coverage", ref: { kind: "coverage" as const } };
      return makeOutcome("not-ready", `MM2's topic filter (${flow.topicsFilter}) matches no source topic`, [coverage]);
    }
    const target = findFreshCluster(snapshot, flow.target);
    if (target === null) return makeOutcome("unknown", `${flow.target} did not answer this cycle`);
    const counts = countPartitionsByTopic(flow);
    const targetTopics = indexTopics(target);
    const items: ReadinessItem[] = [];
    for (const [topic, { targetTopic, partitions }] of counts) {
      const remote = targetTopics.get(targetTopic);
      const ref = { kind: "topic" as const, topic };
      if (remote === undefined) items.push({ text: `${targetTopic} missing on ${flow.target}`, ref });
      else if (remote.partitions.length !== partitions) {
        const text = `${targetTopic} has ${remote.partitions.length} partitions, ${topic} has ${partitions}`;
        items.push({ text, ref });
      }
    }
    if (items.length === 0) {
      return makeOutcome("ok", `all ${counts.size} topics exist on ${flow.target} with the same partition counts`);
    }
    const differ = `${items.length} of ${counts.size} topics missing or different on ${flow.target}`;
    return makeOutcome("not-ready", `${differ}: ${items[0]!.text}`, items);
  },
};
