import { internPrefixedPartitionKey } from "@/lib/collector/partition-keys";
import type { Finding } from "./types";
import {
  type CheckpointWatch, defaultTranslationThresholds, isCheckpointOwed, resolveCheckpointStaleMs, staleFinding,
  type TranslationThresholds,
} from "./translation-detectors";
import {
  type FlowTranslation, type GroupRowReader, type GroupTranslation, type PartitionTranslation, readGroupRows,
} from "@/lib/translation";
import { Identity, Life, type WatchEntry, WatchSlots } from "./watch-slots";

/**
 * A group's rows of its last judgement, by position: topic, partition, and the slot of its key; the
 * group's key prefix (`<flow>|<group>|`, one string for the group's life) and the judgement that last held it.
 */
interface GroupPositions {
  prefix: string;
  mark: number;
  /** The reader's rowsIdentity at the last judgement: while it is the same, each position names the same row. */
  rowsIdentity: object | null;
  topics: string[];
  partitions: number[];
  slots: number[];
}

/** A flow's slots, and its groups' positions. */
interface FlowWatch {
  slots: WatchSlots;
  groups: Map<string, GroupPositions>;
}

/**
 * The checkpoint watch kept in place between cycles: the answers of the per-object judgement it replaced (same
 * findings, same entries; kept for the differential tests in tests/unit/detect/reference-stale-checkpoints.ts)
 * without a record of every entry (190,000 keys at 100,000 partitions), and with the keys whose entry changed since the
 * last `takeChanges`, so the caller writes those alone. The entries are columns of numbers (watch-slots.ts), judged from
 * the translation's row columns (GroupRowReader): a row still owed since the same checkpoint costs no object, no
 * bigint and no lookup, as a group's rows come in the same order cycle after cycle and each position keeps its slot.
 */
export class CheckpointWatchState {
  private readonly flows = new Map<string, FlowWatch>();
  private marks = 0;

  /** A state holding `watch`'s entries (a stored watch: no change to take). */
  constructor(watch: CheckpointWatch = {}) {
    for (const key in watch) {
      const { slots } = this.flowOf(key.slice(0, key.indexOf("|")));
      restoreEntry(slots, slots.add(key), watch[key]!);
    }
  }

  /** Every entry, by key (each a new object). */
  *entries(): Generator<[string, WatchEntry]> {
    for (const { slots } of this.flows.values()) {
      for (let s = 0; s < slots.keys.length; s++) if (slots.life[s] === Life.LIVE) yield [slots.keys[s]!, slots.entry(s)];
    }
  }

  /**
   * Calls `visit` with each key whose entry changed since the last call, its flow's slots and its slot there (−1: the
   * entry is gone): the persister reads the entry's numbers from the slots' columns (WatchSlots.takeChanges).
   */
  takeChanges(visit: (key: string, slots: WatchSlots, slot: number) => void): void {
    for (const { slots } of this.flows.values()) slots.takeChanges(visit);
  }

  /**
   * CHECKPOINT_STALE, one finding per group/partition (warning). MM2 owes a checkpoint when its
   * translation is ≥ 0 and (a) there is no checkpoint yet, or (b) the committed offset moved away
   * from the checkpoint's upstream offset AND MirrorCheckpointTask would emit it
   * (checkpointIsMoreRecent: committed < checkpoint upstream [rewind], or translation > checkpoint
   * downstream). A moving group whose translation stays put legitimately gets no new checkpoint.
   * The finding fires once the checkpoint has been owed for longer than the group's threshold
   * (resolveCheckpointStaleMs; tracked in this watch, which the caller persists between cycles and
   * restarts) and the latest checkpoint is older than it too. Groups outside MM2's group filter are
   * not in `ft.groups` and are never flagged. While the offset syncs are unreadable
   * (`ft.syncsLoaded` false) nothing is judged and the flow's entries are kept as they were; so for a group
   * whose offsets are unknown this cycle (`unknown`).
   */
  judge(ft: FlowTranslation, now: number, thresholds: TranslationThresholds = defaultTranslationThresholds): Finding[] {
    if (!ft.syncsLoaded) return [];
    const mark = ++this.marks;
    const flow = this.flowOf(ft.flow);
    const { slots, groups } = flow;
    const findings: Finding[] = [];
    let held = 0;
    for (const g of ft.groups) {
      const last = groups.get(g.group);
      if (g.unknown !== null) {
        // Not judged: the group's clocks are kept as they were until its offsets are read again.
        keepGroup(slots, last?.prefix ?? `${ft.flow}|${g.group}|`, mark);
        if (last !== undefined && last.mark !== mark) held++;
        if (last !== undefined) last.mark = mark;
        continue;
      }
      const rows = readGroupRows(g);
      const thresholdMs = resolveCheckpointStaleMs(ft.checkpointTiming, rows.hasCheckpoint(), thresholds.checkpointStaleMs);
      if (thresholdMs === null) continue;
      let positions = last;
      if (positions === undefined) {
        positions = { prefix: `${ft.flow}|${g.group}|`, mark, rowsIdentity: null, topics: [], partitions: [], slots: [] };
        groups.set(g.group, positions);
      }
      if (positions.mark !== mark) held++;
      positions.mark = mark;
      const groupPrefix = positions.prefix;
      // The same rows in the same order as last judged (the usual group): each position keeps its slot unread.
      const sameRows = rows.rowsIdentity !== null && positions.rowsIdentity === rows.rowsIdentity;
      for (let i = 0; i < rows.length; i++) {
        // Every row has a slot, owed or not, for as long as its position holds it: a row owed again costs no key.
        let slot = sameRows ? positions.slots[i]! : -1;
        if (slot === -1) slot = findRowSlot(slots, positions, groupPrefix, rows, i);
        slots.seen[slot] = mark;
        if (!rows.isCheckpointOwed(i)) continue;
        if (owe(slots, slot, rows, i, now)) slots.changed.set(slots.keys[slot]!, slot);
        // Otherwise still owed since the same checkpoint: nothing to write.
        slots.kept[slot] = mark;
        const owedMs = now - slots.dueSince[slot]!;
        if (owedMs <= thresholdMs) continue;
        // The checkpoint's age only past the threshold: reading it touches the checkpoint's object.
        const at = rows.checkpointReadAt(i);
        if (Number.isNaN(at) || now - at > thresholdMs) {
          const p = rows.row(i);
          findings.push(staleFinding(ft, g, p, { expected: isCheckpointOwed(p)!, owedMs, thresholdMs }, now));
        }
      }
      positions.topics.length = positions.partitions.length = positions.slots.length = rows.length;
      positions.rowsIdentity = rows.rowsIdentity;
    }
    // Groups gone, or not judged (no threshold), lose their positions.
    if (held !== groups.size) groups.forEach((positions, group) => positions.mark !== mark && groups.delete(group));
    sweep(slots, mark);
    return findings;
  }

  /**
   * Whether MM2 still has time to checkpoint a group partition moved back upstream past its latest checkpoint: the
   * checkpoint names a higher upstream offset than the group's, MM2 owes a translatable one (MirrorCheckpointTask
   * emits on an upstream rewind), and it has been owed (since this watch's last `judge`) for no longer than
   * CHECKPOINT_STALE's threshold. False where MM2 cannot translate the new offset (it will never emit it) or emits
   * no checkpoints at all.
   */
  isAwaitingRewoundCheckpoint(
    ft: FlowTranslation,
    group: GroupTranslation,
    row: PartitionTranslation,
    now: number,
    thresholds: TranslationThresholds = defaultTranslationThresholds,
  ): boolean {
    if (row.checkpoint === null || row.committed >= row.checkpoint.upstream || isCheckpointOwed(row) === null) return false;
    const thresholdMs = resolveCheckpointStaleMs(ft.checkpointTiming, true, thresholds.checkpointStaleMs);
    const key = internPrefixedPartitionKey(`${ft.flow}|${group.group}|`, row.topic, row.partition);
    const slots = this.flows.get(ft.flow)?.slots;
    const slot = slots === undefined ? -1 : slots.find(key);
    if (slots === undefined || slot === -1 || slots.life[slot] !== Life.LIVE) return false;
    return thresholdMs !== null && now - slots.dueSince[slot]! <= thresholdMs;
  }

  private flowOf(id: string): FlowWatch {
    let flow = this.flows.get(id);
    if (flow === undefined) this.flows.set(id, (flow = { slots: new WatchSlots(id), groups: new Map() }));
    return flow;
  }
}

/**
 * The slot of row `i` of a group whose rows are not known to be as last judged: the position's slot when it names the
 * same topic-partition, else the slot of the row's key (made when missing), which the position holds from now on.
 */
function findRowSlot(slots: WatchSlots, positions: GroupPositions, groupPrefix: string, rows: GroupRowReader, i: number): number {
  const topic = rows.topic(i);
  const partition = rows.partition(i);
  if (positions.topics[i] === topic && positions.partitions[i] === partition) return positions.slots[i]!;
  const key = internPrefixedPartitionKey(groupPrefix, topic, partition);
  let slot = slots.find(key);
  if (slot === -1) slot = slots.add(key);
  positions.topics[i] = topic;
  positions.partitions[i] = partition;
  positions.slots[i] = slot;
  return slot;
}

/**
 * Owes row `i`'s checkpoint at `slot`: unchanged when the slot's live entry names the same checkpoint, else a new
 * entry owed from `now` on. Whether the entry changed.
 */
function owe(slots: WatchSlots, slot: number, rows: GroupRowReader, i: number, now: number): boolean {
  const live = slots.life[slot] === Life.LIVE;
  const upstream = rows.checkpointUpstream(i);
  if (Number.isNaN(upstream)) {
    if (live && slots.identity[slot] === Identity.NONE) return false;
    slots.setNone(slot, now);
    return true;
  }
  const downstream = rows.checkpointDownstream(i);
  if (Number.isSafeInteger(upstream) && Number.isSafeInteger(downstream)) {
    const same = slots.identity[slot] === Identity.NUMBERS && slots.upstream[slot] === upstream && slots.downstream[slot] === downstream;
    if (live && same) return false;
    slots.setNumbers(slot, upstream, downstream, now);
    return true;
  }
  // Beyond 2^53: compared as bigints (as the reference's isSameCheckpoint).
  const checkpoint = rows.checkpoint(i)!;
  const held = slots.identity[slot] === Identity.BIGINTS ? slots.bigs.get(slot) : undefined;
  if (live && held !== undefined && held.upstream === checkpoint.upstream && held.downstream === checkpoint.downstream) return false;
  slots.setBigints(slot, checkpoint.upstream, checkpoint.downstream, now);
  return true;
}

/** Keeps the live entries of an unjudged group (by key prefix, as stored ones have no position) and its slots. */
function keepGroup(slots: WatchSlots, groupPrefix: string, mark: number): void {
  for (let s = 0; s < slots.keys.length; s++) {
    if (slots.life[s] === Life.FREE || !slots.keys[s]!.startsWith(groupPrefix)) continue;
    slots.seen[s] = mark;
    if (slots.life[s] === Life.LIVE) slots.kept[s] = mark;
  }
}

/**
 * What this judgement did not keep is gone (paid, no longer owed, or its group left), and a slot it did not name is
 * freed. One pass over the flow's columns.
 */
function sweep(slots: WatchSlots, mark: number): void {
  const { life, kept, seen, keys } = slots;
  for (let s = 0; s < keys.length; s++) {
    const state = life[s];
    if (state === Life.FREE) continue;
    if (state === Life.LIVE && kept[s] !== mark) {
      slots.retire(s);
      slots.changed.set(keys[s]!, s);
    }
    if (seen[s] !== mark) slots.release(s);
  }
}

/** Sets a stored entry at `slot` (its identity parsed once). */
function restoreEntry(slots: WatchSlots, slot: number, entry: WatchEntry): void {
  if (entry.checkpoint === null) return slots.setNone(slot, entry.dueSince);
  const match = /^(-?\d+):(-?\d+)$/.exec(entry.checkpoint);
  const [upstream, downstream] = match === null ? [null, null] : [BigInt(match[1]!), BigInt(match[2]!)];
  if (upstream === null || downstream === null || `${upstream}:${downstream}` !== entry.checkpoint) {
    return slots.setInvalid(slot, entry.checkpoint, entry.dueSince);
  }
  const [up, down] = [Number(upstream), Number(downstream)];
  if (Number.isSafeInteger(up) && Number.isSafeInteger(down)) slots.setNumbers(slot, up, down, entry.dueSince);
  else slots.setBigints(slot, upstream, downstream, entry.dueSince);
}
