import { ShardAssignment } from "@/lib/collector/shards";

/** A collector's assignment holding `shards` of `count` from the start of its next cycle, as membership sets it. */
export function holdShards(shards: number[], count: number): ShardAssignment {
  const assignment = new ShardAssignment(count);
  moveShards(assignment, shards);
  return assignment;
}

/** A rebalance: the assignment now holds `shards`, in effect from the cycle that begins now. */
export function moveShards(assignment: ShardAssignment, shards: number[]): void {
  assignment.update(shards);
  assignment.beginCycle();
}
