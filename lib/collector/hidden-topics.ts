import type { ClusterReader } from "@/lib/kafka";
import { findAuthorizationError } from "./denied-reads";
import type { ClusterSnapshot, DeniedRead, Flow } from "./types";

/**
 * The topics each cluster must hold for the flows and MM2 creates when its connectors start: the offset syncs and
 * the checkpoints. Remote topics are left out: MM2 creates them a topic refresh after their source topic, and a
 * second Metadata request every time a topic is new is not worth it (a hidden one is named by these two already).
 */
function listExpectedTopics(flows: readonly Flow[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (cluster: string, topic: string) => out.set(cluster, (out.get(cluster) ?? new Set()).add(topic));
  for (const f of flows) {
    add(f.offsetSyncs.cluster, f.offsetSyncs.topic);
    add(f.target, f.checkpointsTopic);
  }
  return out;
}

/**
 * A topic the principal may not Describe is left out of an all-topics Metadata answer, so it looks absent. For each
 * internal topic the flows need that a cluster's Metadata did not list, one Metadata request by name per cluster tells a
 * topic that does not exist (UNKNOWN_TOPIC_OR_PARTITION) from one hidden by an ACL (TOPIC_AUTHORIZATION_FAILED),
 * which is added to the cluster's denied reads. A failed probe changes nothing (the cluster's own error stands).
 */
export async function probeHiddenTopics(clusters: readonly ClusterSnapshot[], flows: readonly Flow[], readers: ReadonlyMap<string, ClusterReader>): Promise<ClusterSnapshot[]> {
  const expected = listExpectedTopics(flows);
  return Promise.all(
    clusters.map(async (cluster) => {
      const reader = readers.get(cluster.alias);
      if (!reader || !cluster.reachable || cluster.stale) return cluster;
      const listed = new Set(cluster.topics.map((t) => t.name));
      const absent = [...(expected.get(cluster.alias) ?? [])].filter((t) => !listed.has(t)).sort();
      if (absent.length === 0) return cluster;
      const answer = await reader.readMetadata(absent).catch(() => null);
      const denied: DeniedRead[] = (answer?.topics ?? []).flatMap((t) => {
        const error = t.error === null ? null : findAuthorizationError(t.error);
        return error === null ? [] : [{ api: "Metadata", resourceType: "topic" as const, resource: t.name, error }];
      });
      return denied.length === 0 ? cluster : { ...cluster, denied: [...(cluster.denied ?? []), ...denied] };
    }),
  );
}
