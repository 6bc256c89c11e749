/**
 * Blind spots: what Gapwatch cannot see on a cluster because a read was denied (ACL), named with the figure or
 * detector that is off, the topics or groups it is off for, and the ACL that fixes it. Pure: derived from one
 * snapshot's denied reads (ClusterSnapshot.denied) and its flows' Fetch errors.
 */
import type { DeniedRead, Snapshot } from "@/lib/collector/types";
import { findAuthorizationError } from "@/lib/collector/denied-reads";
import { type AclRule, type BlindSpotKind, describeHidden, findRule } from "./acl-rules";
import { renderAclCommand } from "./render-acls";

/** One blind spot of one cluster. */
export interface BlindSpot {
  cluster: string;
  kind: BlindSpotKind;
  /** The refused requests, e.g. ["DescribeConfigs"]. */
  apis: string[];
  /** Kafka's answer, e.g. TOPIC_AUTHORIZATION_FAILED. */
  error: string;
  resourceType: DeniedRead["resourceType"];
  /** The topics or groups the reads were refused for, sorted (`kafka-cluster` for the cluster). */
  resources: string[];
  /** The detector or figure that is off for them. */
  hides: string;
  /** The ACL Gapwatch needs: operation and resource pattern, e.g. `DescribeConfigs on topic * (literal)`. */
  acl: string;
  /** The `kafka-acls` command that grants it. */
  fix: string;
}

/** A Fetch of an internal topic refused, as flow-readings.ts reports it: `reading <cluster>/<topic>/<partition>: <error>`. */
const fetchError = /^reading ([^/\s]+)\/([^/\s]+)\/\d+: (.+)$/;

/** Which ACL a refused request lacks: the kind of blind spot it makes. */
function kindOf(d: DeniedRead): BlindSpotKind {
  if (d.resourceType === "cluster") return "broker-configs";
  if (d.resourceType === "group") return "group-offsets";
  if (d.api === "Fetch") return "topic-records";
  return d.api === "DescribeConfigs" ? "topic-configs" : "topic-metadata";
}

/** The Fetch requests refused per cluster, read from the flows' errors (internal topics are read per flow). */
function collectFetchDenials(snapshot: Snapshot): Map<string, DeniedRead[]> {
  const out = new Map<string, DeniedRead[]>();
  for (const flow of snapshot.flows) {
    for (const e of flow.errors) {
      const m = fetchError.exec(e);
      const error = m ? findAuthorizationError(m[3]!) : null;
      if (!m || error === null) continue;
      const list = out.get(m[1]!) ?? [];
      list.push({ api: "Fetch", resourceType: "topic", resource: m[2]!, error });
      out.set(m[1]!, list);
    }
  }
  return out;
}

function describeAcl(rule: AclRule): string {
  return `${rule.operation} on ${rule.resourceType} ${rule.resourceName}${rule.resourceType === "cluster" ? "" : ` (${rule.patternType})`}`;
}

/**
 * Every blind spot of the snapshot, one per cluster and kind, clusters in snapshot order. `principals` gives
 * Gapwatch's principal per cluster alias for the fix command (lib/acls principalOf).
 */
export function deriveBlindSpots(snapshot: Snapshot, principals: Readonly<Record<string, string>> = {}): BlindSpot[] {
  const fetches = collectFetchDenials(snapshot);
  const spots: BlindSpot[] = [];
  for (const cluster of snapshot.clusters) {
    const denied = [...(cluster.denied ?? []), ...(fetches.get(cluster.alias) ?? [])];
    const byKind = new Map<BlindSpotKind, DeniedRead[]>();
    for (const d of denied) byKind.set(kindOf(d), [...(byKind.get(kindOf(d)) ?? []), d]);
    for (const [kind, reads] of byKind) {
      const rule = findRule(kind);
      const principal = principals[cluster.alias] ?? "User:<gapwatch principal>";
      spots.push({
        cluster: cluster.alias,
        kind,
        apis: [...new Set(reads.map((r) => r.api))].sort(),
        error: [...new Set(reads.map((r) => r.error))].sort().join(", "),
        resourceType: rule.resourceType,
        resources: [...new Set(reads.map((r) => r.resource))].sort(),
        hides: describeHidden(kind),
        acl: describeAcl(rule),
        fix: renderAclCommand(rule, principal, cluster.bootstrap),
      });
    }
  }
  return spots;
}

/** Blind spots per kind and cluster, for the `gapwatch_blind_spots` gauge: how many resources each hides. */
export function countBlindSpots(spots: readonly BlindSpot[]): { cluster: string; kind: BlindSpotKind; resources: number }[] {
  return spots.map((s) => ({ cluster: s.cluster, kind: s.kind, resources: s.resources.length }));
}
