/**
 * Which flow partitions are unknown this cycle: every read a partition's figures depend on that
 * failed marks exactly the partitions it covers, with the reason and when the partition was last
 * known. Detectors skip unknown partitions and carry their findings (unknown is not healthy).
 */
import type { StateNumbers, StateReading } from "./cluster-partition-rows";
import type { ClusterSnapshot, Flow, FlowPartition, UnknownData } from "./types";

/** The previous cycle's flow and when that cycle read it: how long a partition has been unknown. */
export interface PreviousFlow {
  flow: Flow;
  takenAt: number;
}

/** What failed this cycle for one flow, besides its clusters' own partition errors. */
export interface FlowReadFailures {
  /** MM2's positions (Connect offsets, or the dedicated offsets topic) could not be read. */
  positionsError: string | null;
  /** The offset-syncs topic could not be read. */
  syncsError: string | null;
  /**
   * Flows split over several source connectors: the connectors whose positions could not be read (their Connect
   * cluster did not answer), with why. Only the partitions each copies are unknown for it.
   */
  positionsErrorsByConnector?: ReadonlyMap<string, string>;
}

/** A partition state as the judge reads it: its log offsets as bigints (null: not read) or as numbers (NaN). */
type JudgedState = StateReading | StateNumbers;

/** Decides one partition; `positionSource` is where its MM2 position came from (or would have). */
export type UnknownJudge = (
  source: JudgedState,
  target: JudgedState | undefined,
  positionSource: "committed" | "offset-sync",
  connector?: string | null,
) => UnknownData | null;

/**
 * A partition is unknown when:
 * - its source or target cluster did not answer this cycle (the snapshot carries older data);
 * - ListOffsets failed for its source partition, or for its target partition when that exists
 *   (a target topic MM2 has not created yet is known to be empty, not unknown);
 * - MM2's positions could not be read and its position comes from them (Connect's committed
 *   offsets), not from the offset syncs; in a split flow, those of the connector that copies it;
 * - the offset syncs could not be read and its position comes from the newest sync (a sync written
 *   after a purge would be missing, and the derived position would be too low).
 * `dataAt`: the previous cycle's time when the partition was known then, else what the previous
 * cycle said (null: never known).
 */
export function createUnknownJudge(
  source: ClusterSnapshot | undefined,
  target: ClusterSnapshot | undefined,
  failures: FlowReadFailures,
  previous: PreviousFlow | null,
): UnknownJudge {
  // Built only when some partition is unknown: most cycles have none, and a flow has 100,000 partitions.
  let before: Map<string, FlowPartition> | null = null;
  const clusterReasons = [describeClusterFailure(source), describeClusterFailure(target)].filter((r): r is string => r !== null);
  const isRead = (p: JudgedState | undefined) => p === undefined || hasLogOffsets(p);
  return (sourcePartition, targetPartition, positionSource, connector = null) => {
    const positionsError = (connector === null ? undefined : failures.positionsErrorsByConnector?.get(connector)) ?? failures.positionsError;
    // The common case, without building anything: every read of this partition succeeded.
    const readFailed = (positionsError !== null && positionSource === "committed") || (failures.syncsError !== null && positionSource === "offset-sync");
    if (clusterReasons.length === 0 && !readFailed && isRead(sourcePartition) && isRead(targetPartition)) return null;
    const reasons = [...clusterReasons];
    if (clusterReasons.length === 0) {
      reasons.push(...describeOffsetsFailure(source, sourcePartition), ...describeOffsetsFailure(target, targetPartition));
    }
    if (positionsError !== null && positionSource === "committed") reasons.push(`MM2's positions: ${positionsError}`);
    if (failures.syncsError !== null && positionSource === "offset-sync") reasons.push(`offset syncs: ${failures.syncsError}`);
    if (reasons.length === 0) return null;
    before ??= new Map((previous?.flow.partitions ?? []).map((p) => [`${p.topic}/${p.partition}`, p]));
    const last = before.get(`${sourcePartition.topic}/${sourcePartition.partition}`);
    const dataAt = last === undefined ? null : last.unknown === null ? (previous?.takenAt ?? null) : last.unknown.dataAt;
    return { reason: reasons.join("; "), dataAt };
  };
}

function describeClusterFailure(cluster: ClusterSnapshot | undefined): string | null {
  if (cluster === undefined) return "a cluster of the flow is not configured";
  if (cluster.reachable && !cluster.stale) return null;
  return `${cluster.alias} unreachable: ${cluster.error ?? "no data read yet"}`;
}

function describeOffsetsFailure(cluster: ClusterSnapshot | undefined, partition: JudgedState | undefined): string[] {
  if (cluster === undefined || partition === undefined || hasLogOffsets(partition)) return [];
  return [`${cluster.alias} ${partition.topic}/${partition.partition}: ${partition.error ?? "offsets not read"}`];
}

/** Whether both log offsets were read (neither null nor NaN). */
function hasLogOffsets(p: JudgedState): boolean {
  return isReadOffset(p.logStart) && isReadOffset(p.logEnd);
}

function isReadOffset(offset: bigint | number | null): boolean {
  return offset !== null && !(typeof offset === "number" && Number.isNaN(offset));
}

/** Counts unknown partitions (metrics, health, flow cards). */
export function countUnknownPartitions(partitions: readonly FlowPartition[]): number {
  return partitions.filter((p) => p.unknown !== null).length;
}
