import { hostname } from "node:os";
import { hashKey } from "@/lib/kafka";

/**
 * Which shard a flow (or a cluster in no flow) belongs to when collectors share the work (config `scaleOut`).
 * The hash is Kafka's default partitioner's (BuiltInPartitioner.partitionForKey): toPositive(murmur2(utf8 key)) %
 * shards, with the client's own murmur2 (lib/kafka/key-hash.ts), so the same flow id lands on the same shard in every
 * collector, every version, and in Kafka's own tools.
 */
export function shardOf(key: string, shards: number): number {
  return (hashKey(key) & 0x7fffffff) % shards;
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
