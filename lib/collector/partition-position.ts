/**
 * MM2's position and the lag of one partition computed as numbers: what flow-builder.ts `derivePosition` and
 * `computeLag` compute with bigints, without the four or five bigints a partition made each cycle (at 1,000,000
 * partitions, millions of short-lived objects a cycle for the scavenger). The offsets are taken as numbers (NaN:
 * null) only when every one is within ±2^51: the sums and differences below (at most three terms) then stay below
 * 2^53 and are exact, so each answer is the bigint one. A partition with a larger offset takes the bigint path.
 */

/** Beyond this, an offset is computed with bigints (three terms of ±2^51 stay exact as numbers). */
const smallLimit = 2 ** 51;

/** One partition's offsets as numbers (NaN: null), read from its bigints; `small` when every one is within ±2^51. */
export class PartitionNumbers {
  sourceLogStart = Number.NaN;
  sourceLogEnd = Number.NaN;
  targetLogStart = Number.NaN;
  targetLogEnd = Number.NaN;
  /** Connect's stored offset of the last replicated record (MM2's committed position is one past it). */
  lastReplicated = Number.NaN;
  syncUpstream = Number.NaN;
  syncDownstream = Number.NaN;
  small = true;

  /** Reads one partition's offsets (the object is reused from partition to partition: nothing is allocated). */
  read(
    sourceLogStart: bigint | null,
    sourceLogEnd: bigint | null,
    targetLogStart: bigint | null,
    targetLogEnd: bigint | null,
    lastReplicated: bigint | undefined,
    sync: { upstream: bigint; downstream: bigint } | null,
  ): this {
    const cluster = [toNumber(sourceLogStart), toNumber(sourceLogEnd), toNumber(targetLogStart), toNumber(targetLogEnd)] as const;
    return this.readNumbers(...cluster, lastReplicated, sync);
  }

  /**
   * read, with the clusters' four log offsets given as numbers (NaN: null), as the cluster poll's rows hold them
   * (cluster-partition-rows.ts): no bigint made per state read. An offset beyond ±2^51 is not small either way.
   */
  readNumbers(
    sourceLogStart: number,
    sourceLogEnd: number,
    targetLogStart: number,
    targetLogEnd: number,
    lastReplicated: bigint | undefined,
    sync: { upstream: bigint; downstream: bigint } | null,
  ): this {
    this.sourceLogStart = sourceLogStart;
    this.sourceLogEnd = sourceLogEnd;
    this.targetLogStart = targetLogStart;
    this.targetLogEnd = targetLogEnd;
    this.lastReplicated = toNumber(lastReplicated ?? null);
    this.syncUpstream = sync === null ? Number.NaN : Number(sync.upstream);
    this.syncDownstream = sync === null ? Number.NaN : Number(sync.downstream);
    this.small =
      isSmall(this.sourceLogStart) &&
      isSmall(this.sourceLogEnd) &&
      isSmall(this.targetLogStart) &&
      isSmall(this.targetLogEnd) &&
      isSmall(this.lastReplicated) &&
      isSmall(this.syncUpstream) &&
      isSmall(this.syncDownstream);
    return this;
  }

  /** MM2's committed position: one past the last replicated record (NaN: unknown). */
  committedPosition(): number {
    return this.lastReplicated + 1;
  }

  /** flow-builder.ts `derivePosition` over these numbers (NaN: null). */
  derivedPosition(): number {
    const { syncUpstream, syncDownstream, targetLogEnd, sourceLogEnd } = this;
    if (Number.isNaN(syncUpstream) || Number.isNaN(targetLogEnd) || Number.isNaN(sourceLogEnd) || targetLogEnd <= syncDownstream) return Number.NaN;
    const position = syncUpstream + (targetLogEnd - syncDownstream);
    return position <= sourceLogEnd ? position : Number.NaN;
  }

  /** flow-builder.ts `computeLag` for MM2's position `position` (NaN: unknown); NaN for a null lag. */
  lag(position: number): number {
    const { sourceLogStart, sourceLogEnd } = this;
    if (Number.isNaN(sourceLogEnd)) return Number.NaN;
    if (Number.isNaN(position)) return !Number.isNaN(sourceLogStart) && sourceLogStart === sourceLogEnd ? 0 : Number.NaN;
    const from = !Number.isNaN(sourceLogStart) && sourceLogStart > position ? sourceLogStart : position;
    const lag = sourceLogEnd - from;
    return lag > 0 ? lag : 0;
  }
}

function toNumber(value: bigint | null): number {
  return value === null ? Number.NaN : Number(value);
}

/** NaN (null) counts as small. */
function isSmall(n: number): boolean {
  return !(Math.abs(n) > smallLimit);
}
