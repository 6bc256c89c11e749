import type { Flow, FlowPartition, Snapshot } from "@/lib/collector/types";
import { NotFoundError } from "@/lib/errors";
import { describeNumbers } from "./not-found";
import { listFlowTopicNames, listFlowTopicPartitions } from "./topic";

/** A flow's partition named by a URL: found, or which part of the path names nothing, and why. */
export type PartitionLookup =
  | { found: true; partition: FlowPartition }
  | { found: false; missing: "topic" | "partition"; message: string };

/**
 * Finds upstream partition `rawPartition` of `topic` in a flow (HTTP 404 when not found: the message names
 * what does exist). A partition number that is not a plain non-negative integer names no partition either.
 */
export function lookupFlowPartition(flow: Flow, topic: string, rawPartition: string): PartitionLookup {
  const partitions = listFlowTopicPartitions(flow, topic);
  if (partitions.length === 0) {
    const topics = listFlowTopicNames(flow);
    const shown = topics.length > 20 ? `${topics.slice(0, 20).join(", ")} and ${topics.length - 20} more` : topics.join(", ") || "none";
    return { found: false, missing: "topic", message: `flow ${flow.id} replicates no topic "${topic}" (use the source topic's name); its topics: ${shown}` };
  }
  const wanted = /^\d{1,9}$/.test(rawPartition) ? Number(rawPartition) : null;
  const partition = wanted === null ? undefined : partitions.find((p) => p.partition === wanted);
  if (partition) return { found: true, partition };
  const numbers = partitions.map((p) => p.partition);
  return { found: false, missing: "partition", message: `topic ${topic} of flow ${flow.id} has no replicated partition "${rawPartition}"; it has partitions ${describeNumbers(numbers)}` };
}

/**
 * For the history API: throws a 404 when the latest snapshot knows neither the flow nor the partition and the
 * store holds no samples of it (history of a topic deleted since is still served). Before the first cycle
 * (`snapshot` null) nothing is known to be missing.
 */
export function requireKnownPartition(snapshot: Snapshot | null, flowId: string, topic: string, partition: number, sampleCount: number): void {
  if (snapshot === null || sampleCount > 0) return;
  const flow = snapshot.flows.find((f) => f.id === flowId);
  if (!flow) throw new NotFoundError(`no MM2 flow "${flowId}"; known flows: ${snapshot.flows.map((f) => f.id).join(", ") || "none discovered yet"}`);
  const lookup = lookupFlowPartition(flow, topic, String(partition));
  if (!lookup.found) throw new NotFoundError(lookup.message);
}
