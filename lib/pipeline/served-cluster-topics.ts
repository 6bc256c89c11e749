/**
 * The clusters' topics as the encoder takes them: each cluster's topics hand over their columns (ColumnarArray,
 * columnar-source.ts), gathered in one pass over the topics and their partition states (gathered-columns.ts), byte
 * for byte as the encoder writes the `topics` array itself. At 100,000 partitions the two clusters hold about 200,000
 * partition states in 36,000 short arrays (one per topic), which the encoder otherwise flattens, then splits into a
 * column per property, then flattens again (each state's replica lists). Only the encoder reads these.
 */
import type { ClusterSnapshot, TopicState } from "@/lib/collector/types";
import { inlineUpTo } from "./columnar-codec";
import { type ColumnarArray, type ColumnInput, columnarArray } from "./columnar-source";
import { isPlainObject, ObjectColumn, ValueColumn } from "./gathered-columns";

/** `clusters` with each one's topics as columns where they can be (for encodeColumnar only). */
export function serveClusterTopics(clusters: readonly ClusterSnapshot[]): readonly unknown[] {
  // In a column of clusters (more than a few) a cluster's topics are an item the encoder writes from the array itself.
  if (clusters.length > inlineUpTo) return clusters;
  return clusters.map((cluster) => {
    const keys = topicKeys(cluster.topics);
    return keys === null ? cluster : { ...cluster, topics: new TopicColumns(cluster.topics, keys) };
  });
}

/**
 * The properties every topic has, in order (none undefined, `partitions` an array), or null when they differ (the
 * encoder then writes the topics as it would any objects).
 */
function topicKeys(topics: readonly TopicState[]): readonly string[] | null {
  if (topics.length <= inlineUpTo || !isPlainObject(topics[0])) return null;
  const keys = Object.keys(topics[0]);
  if (!keys.includes("partitions")) return null;
  for (const topic of topics) {
    if (!isPlainObject(topic) || !Array.isArray(topic.partitions)) return null;
    const own = Object.keys(topic);
    if (own.length !== keys.length) return null;
    for (let j = 0; j < keys.length; j++) if (own[j] !== keys[j] || topic[keys[j]!] === undefined) return null;
  }
  return keys;
}

/** A cluster's topics, of one shape (`keys`), as columns: their partition states gathered in one pass. */
class TopicColumns implements ColumnarArray {
  readonly [columnarArray] = true as const;

  constructor(private readonly topics: readonly TopicState[], private readonly keys: readonly string[]) {}

  get length(): number {
    return this.topics.length;
  }

  column(): ColumnInput {
    const topics = this.topics;
    const lengths = new Uint32Array(topics.length);
    const states = new ObjectColumn();
    for (let i = 0; i < topics.length; i++) {
      const partitions = topics[i]!.partitions;
      lengths[i] = partitions.length;
      for (let j = 0; j < partitions.length; j++) states.add(partitions[j]);
    }
    const columns = this.keys.map((key): ColumnInput => {
      if (key === "partitions") return { kind: "arrays", lengths, items: states.finish() };
      const column = new ValueColumn();
      for (const topic of topics) column.add((topic as unknown as Record<string, unknown>)[key]);
      return column.finish();
    });
    return { kind: "objects", length: topics.length, keys: this.keys, columns };
  }

  list(): readonly unknown[] {
    return this.topics;
  }
}
