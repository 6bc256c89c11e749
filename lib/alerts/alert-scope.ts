import { shardValueKey } from "@/lib/collector/shards";

/**
 * What a collector owns when collectors share the work (config `scaleOut`): every alert and risk belongs to the flow,
 * cluster or Connect cluster its key names, and so to that owner's shard. A collector loads, reconciles and writes
 * only those of the shards it holds, so that a shard's new owner reads exactly what the previous one left (the rules'
 * memory is kept the same way: lib/pipeline/rule-memory.ts).
 */

/** The flow, cluster or Connect cluster a finding key names: every detector writes `<TYPE>|<owner>|…`. */
export function ownerOfFindingKey(key: string): string {
  const parts = key.split("|", 2);
  return parts[1] ?? parts[0]!;
}

/** The kv name of a shard's risks. */
export function shardRisksKey(shard: number): string {
  return shardValueKey("risks", shard);
}
