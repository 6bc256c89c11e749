import { hostname } from "node:os";

/**
 * Which shard a flow (or a cluster in no flow) belongs to when collectors share the work (config `scaleOut`).
 * The hash is Kafka's default partitioner's (BuiltInPartitioner.partitionForKey): toPositive(murmur2(utf8 key)) %
 * shards, so the same flow id lands on the same shard in every collector, every version, and in Kafka's own tools.
 */
export function shardOf(key: string, shards: number): number {
  return (murmur2(new TextEncoder().encode(key)) & 0x7fffffff) % shards;
}

/** The kv name of a shard's part of a value the collectors keep per shard (`risks@3`, `checkpoint-watch@3`). */
export function shardValueKey(name: string, shard: number): string {
  return `${name}@${shard}`;
}

/** This process as a collector sharing the work: its published read model's name and its outbox leases' owner. */
export function describeThisCollector(): string {
  return `collector-${hostname()}-${process.pid}`;
}

/**
 * The shards a collector holds, as its cycles see them (config `scaleOut`, role collector): the membership reports
 * every change at once, and the set is fixed when a cycle starts, so the flows the collector polls, the alerts and
 * detector memory its pipeline loads, and what it writes back all belong to the same shards for a whole cycle.
 */
export class ShardAssignment {
  private latest: readonly number[] = [];
  private pinned: readonly number[] = [];

  constructor(readonly shards: number) {}

  /** The membership's new holding (ascending); applies from the next cycle. */
  update(held: readonly number[]): void {
    this.latest = [...held];
  }

  /** Fixes the holding for the cycle that starts now (the collector calls it first thing in a cycle). */
  beginCycle(): void {
    this.pinned = this.latest;
  }

  /** The shards of the current cycle, ascending; empty before the first assignment. */
  held(): readonly number[] {
    return this.pinned;
  }

  /** The shard of `owner` (a flow id, cluster alias or Connect cluster name). */
  shardOfOwner(owner: string): number {
    return shardOf(owner, this.shards);
  }

  /** Whether the current cycle holds the shard of `owner`. */
  owns(owner: string): boolean {
    return this.pinned.includes(this.shardOfOwner(owner));
  }
}

/** Kafka's Utils.murmur2 (clients/src/main/java/org/apache/kafka/common/utils/Utils.java), on 32-bit ints. */
function murmur2(data: Uint8Array): number {
  const length = data.length;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (0x9747b28c ^ length) | 0;
  const length4 = Math.floor(length / 4);
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = data[i4]! | (data[i4 + 1]! << 8) | (data[i4 + 2]! << 16) | (data[i4 + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const tail = length & ~3;
  // The Java switch falls through: 3 takes bytes 2, 1 and 0; 2 takes 1 and 0.
  switch (length % 4) {
    case 3:
      h ^= data[tail + 2]! << 16;
    // falls through
    case 2:
      h ^= data[tail + 1]! << 8;
    // falls through
    case 1:
      h ^= data[tail]!;
      h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}
