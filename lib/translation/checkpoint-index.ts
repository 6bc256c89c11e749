import type { CheckpointPoint } from "@/lib/collector/types";

/** Positions of the latest checkpoints in the listed order, by group, topic and partition. */
type PositionsByGroup = Map<string, Map<string, Map<number, number>>>;

/** Generations of every index (a layout that read one index's positions never takes another's as current). */
let generations = 0;

/**
 * A flow's checkpoints by group, topic and partition (a later one of the same partition wins), kept between cycles:
 * the collector lists the latest checkpoint per group partition in the same order cycle after cycle, replacing the
 * ones MM2 emitted again (a twelfth of them a cycle at MM2's default interval). The index holds each partition's
 * position in the list; while each position of a new list names the partition it named before, the positions stand
 * and the checkpoint at one is the new list's; checkpoints added at the list's end (a group partition's first) are
 * indexed where they stand, and only their groups' rows look their positions up again. Otherwise the index is built
 * again, under a new generation.
 * Rebuilding three levels of maps for 190,000 group partitions every cycle cost ~40 ms and their garbage; setting the
 * replaced checkpoints in them cost a twelfth of that, and a row's two map lookups more (translate-flow.ts reads the
 * positions of a group's rows once per generation: FlowRowsState.readCheckpointPositions).
 */
export class CheckpointIndex {
  private list: readonly CheckpointPoint[] = [];
  private positions: PositionsByGroup = new Map();
  /** Whether `list` names a partition twice (the index then holds fewer checkpoints than the list). */
  private repeats = false;
  private currentGeneration = ++generations;
  /**
   * By position in the list: the checkpoint's upstream and downstream offsets as numbers (NaN: beyond 2^53, where
   * toSafeOffset names the error) and when it was read, set only where the list holds another checkpoint than before,
   * so a row reads its checkpoint's numbers without touching its object or converting its bigints.
   */
  private upstreams: Float64Array = new Float64Array(0);
  private downstreams: Float64Array = new Float64Array(0);
  private readAts: Float64Array = new Float64Array(0);
  /**
   * Counts the updates that added checkpoints at the end of the list (a group partition's first checkpoint): the
   * positions read before stand, except a group's that gained one since (`addedSince`).
   */
  private additions = 0;
  /** Per group: the `additions` count when it last gained a checkpoint at the list's end. */
  private readonly groupAdditions = new Map<string, number>();

  /** Changes whenever a position may name another group partition than it did: positions read before are stale. */
  get generation(): number {
    return this.currentGeneration;
  }

  /** Indexes `checkpoints` (valid until the next update); the index itself, for chaining. */
  update(checkpoints: readonly CheckpointPoint[]): this {
    if (this.repeats || checkpoints.length < this.list.length) return this.rebuild(checkpoints);
    const listed = this.list.length;
    for (let i = 0; i < listed; i++) {
      const was = this.list[i]!;
      const now = checkpoints[i]!;
      if (was === now) continue;
      if (now.partition !== was.partition || now.topic !== was.topic || now.group !== was.group) return this.rebuild(checkpoints);
      this.setNumbers(i, now);
    }
    // Every partition is at one position only (no repeats): the checkpoint there is its latest.
    if (checkpoints.length > listed && !this.append(checkpoints, listed)) return this.rebuild(checkpoints);
    this.list = checkpoints;
    return this;
  }

  /** This index's count of updates that added checkpoints (readCheckpointPositions compares it with addedSince). */
  get additionCount(): number {
    return this.additions;
  }

  /** Whether `group` gained a checkpoint at the list's end after the additionCount `count` was read. */
  addedSince(group: string, count: number): boolean {
    // No group gained one since `count` (a group's count is at most the index's): no lookup by group id.
    return count < this.additions && (this.groupAdditions.get(group) ?? 0) > count;
  }

  /** The group partition's latest checkpoint, or undefined. */
  find(group: string, topic: string, partition: number): CheckpointPoint | undefined {
    const at = this.positions.get(group)?.get(topic)?.get(partition);
    return at === undefined ? undefined : this.list[at];
  }

  /** The positions of a group's latest checkpoints by topic and partition (undefined: the group has none). */
  findGroup(group: string): ReadonlyMap<string, ReadonlyMap<number, number>> | undefined {
    return this.positions.get(group);
  }

  /** The checkpoint at `position` of the last list (a position from this generation). */
  at(position: number): CheckpointPoint {
    return this.list[position]!;
  }

  /** The upstream offset of the checkpoint at `position` as a number; NaN when beyond 2^53. */
  upstreamAt(position: number): number {
    return this.upstreams[position]!;
  }

  /** The downstream offset of the checkpoint at `position` as a number; NaN when beyond 2^53. */
  downstreamAt(position: number): number {
    return this.downstreams[position]!;
  }

  /** When the checkpoint at `position` was read (CheckpointPoint.at). */
  readAt(position: number): number {
    return this.readAts[position]!;
  }

  private setNumbers(position: number, checkpoint: CheckpointPoint): void {
    this.upstreams[position] = toExactNumber(checkpoint.upstream);
    this.downstreams[position] = toExactNumber(checkpoint.downstream);
    this.readAts[position] = checkpoint.at;
  }

  /**
   * Indexes the checkpoints from `from` on, added at the end of the list (the others stand where they were), and
   * marks their groups; false (nothing usable) when one names a partition the index holds: the caller rebuilds it.
   */
  private append(checkpoints: readonly CheckpointPoint[], from: number): boolean {
    const added = this.additions + 1;
    for (let i = from; i < checkpoints.length; i++) {
      const c = checkpoints[i]!;
      let group = this.positions.get(c.group);
      if (group === undefined) this.positions.set(c.group, (group = new Map()));
      let topic = group.get(c.topic);
      if (topic === undefined) group.set(c.topic, (topic = new Map()));
      if (topic.has(c.partition)) return false;
      topic.set(c.partition, i);
      this.groupAdditions.set(c.group, added);
    }
    this.additions = added;
    this.upstreams = growColumn(this.upstreams, checkpoints.length);
    this.downstreams = growColumn(this.downstreams, checkpoints.length);
    this.readAts = growColumn(this.readAts, checkpoints.length);
    for (let i = from; i < checkpoints.length; i++) this.setNumbers(i, checkpoints[i]!);
    return true;
  }

  private rebuild(checkpoints: readonly CheckpointPoint[]): this {
    const byGroup: PositionsByGroup = new Map();
    let partitions = 0;
    for (let i = 0; i < checkpoints.length; i++) {
      const c = checkpoints[i]!;
      let group = byGroup.get(c.group);
      if (group === undefined) byGroup.set(c.group, (group = new Map()));
      let topic = group.get(c.topic);
      if (topic === undefined) group.set(c.topic, (topic = new Map()));
      if (!topic.has(c.partition)) partitions++;
      topic.set(c.partition, i);
    }
    this.groupAdditions.clear();
    this.upstreams = new Float64Array(checkpoints.length);
    this.downstreams = new Float64Array(checkpoints.length);
    this.readAts = new Float64Array(checkpoints.length);
    for (let i = 0; i < checkpoints.length; i++) this.setNumbers(i, checkpoints[i]!);
    this.list = checkpoints;
    this.positions = byGroup;
    this.repeats = partitions !== checkpoints.length;
    this.currentGeneration = ++generations;
    return this;
  }
}

/** `value` as a number when it is one exactly (within ±(2^53 − 1)), else NaN. */
function toExactNumber(value: bigint): number {
  const number = Number(value);
  return number > Number.MAX_SAFE_INTEGER || number < -Number.MAX_SAFE_INTEGER ? Number.NaN : number;
}

/** `column` with room for `length` values (grown by at least a quarter: checkpoints are added a few at a time). */
function growColumn(column: Float64Array, length: number): Float64Array {
  if (length <= column.length) return column;
  const grown = new Float64Array(Math.max(length, Math.ceil(column.length * 1.25)));
  grown.set(column);
  return grown;
}
