import type { CheckpointPoint } from "@/lib/collector/types";

/** The latest checkpoint per group, topic and partition. */
export type CheckpointsByGroup = ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<number, CheckpointPoint>>>;

/**
 * A flow's checkpoints by group, topic and partition (a later one of the same partition wins), kept between cycles:
 * the collector lists the latest checkpoint per group partition in the same order cycle after cycle, replacing the
 * ones MM2 emitted again (a twelfth of them a cycle at MM2's default interval). When each position of the new list
 * names the partition it named before, only the replaced checkpoints are set; otherwise the index is built again.
 * Rebuilding three levels of maps for 190,000 group partitions every cycle cost ~40 ms and their garbage.
 */
export class CheckpointIndex {
  private list: readonly CheckpointPoint[] = [];
  private index = new Map<string, Map<string, Map<number, CheckpointPoint>>>();
  /** Whether `list` names a partition twice (the index then holds fewer checkpoints than the list). */
  private repeats = false;

  /** The index of `checkpoints`; valid until the next update. */
  update(checkpoints: readonly CheckpointPoint[]): CheckpointsByGroup {
    if (this.repeats || checkpoints.length !== this.list.length) return this.rebuild(checkpoints);
    const replaced: number[] = [];
    for (let i = 0; i < checkpoints.length; i++) {
      const was = this.list[i]!;
      const now = checkpoints[i]!;
      if (was === now) continue;
      if (now.partition !== was.partition || now.topic !== was.topic || now.group !== was.group) return this.rebuild(checkpoints);
      replaced.push(i);
    }
    // Every partition is at one position only (no repeats): the checkpoint there is its latest.
    for (const i of replaced) {
      const c = checkpoints[i]!;
      this.index.get(c.group)!.get(c.topic)!.set(c.partition, c);
    }
    this.list = checkpoints;
    return this.index;
  }

  private rebuild(checkpoints: readonly CheckpointPoint[]): CheckpointsByGroup {
    const byGroup = new Map<string, Map<string, Map<number, CheckpointPoint>>>();
    let partitions = 0;
    for (const c of checkpoints) {
      let group = byGroup.get(c.group);
      if (group === undefined) byGroup.set(c.group, (group = new Map()));
      let topic = group.get(c.topic);
      if (topic === undefined) group.set(c.topic, (topic = new Map()));
      if (!topic.has(c.partition)) partitions++;
      topic.set(c.partition, c);
    }
    this.list = checkpoints;
    this.index = byGroup;
    this.repeats = partitions !== checkpoints.length;
    return byGroup;
  }
}
