import { internPrefixedPartitionKey } from "@/lib/collector/partition-keys";
import type { Finding } from "./types";
import {
  type CheckpointWatch, defaultTranslationThresholds, isCheckpointOwed, resolveCheckpointStaleMs, staleFinding,
  type TranslationThresholds,
} from "./translation-detectors";
import { type FlowTranslation, type GroupTranslation, type PartitionTranslation, readGroupRows } from "@/lib/translation";

type WatchEntry = CheckpointWatch[string];

/** A checkpoint's offsets (a row's, or its column's). */
type CheckpointOffsets = { upstream: bigint; downstream: bigint } | null;

/** One watch entry with the checkpoint its identity names, parsed once, and the last judgement that kept it. */
interface Slot {
  key: string;
  entry: WatchEntry;
  upstream: bigint | null;
  downstream: bigint | null;
  /** False when the identity is not two offsets as `${bigint}` writes them: it never names a checkpoint. */
  valid: boolean;
  mark: number;
  /** False once removed from the watch (a group's positions may still point at it). */
  live: boolean;
}

/** A group's rows of its last judgement, by position: topic, partition, and the slot of an owed one. */
interface GroupPositions {
  topics: string[];
  partitions: number[];
  slots: (Slot | undefined)[];
}

/** A flow's slots by key, and its groups' positions. */
interface FlowSlots {
  slots: Map<string, Slot>;
  groups: Map<string, GroupPositions>;
}

/**
 * The checkpoint watch kept in place between cycles: detectStaleCheckpoints' answers (same findings, same entries)
 * without a new record of every entry each cycle (190,000 keys at 100,000 partitions), and with the keys whose entry
 * changed since the last `takeChanges`, so the caller writes those alone. A group's rows come in the same order
 * cycle after cycle: each position keeps the slot of its row, so a row still owed since the same checkpoint costs
 * no key and no lookup; an entry unchanged stays the same object.
 */
export class CheckpointWatchState {
  private readonly flows = new Map<string, FlowSlots>();
  /** Keys whose entry changed since the last takeChanges, with their entry now (null: gone). */
  private changed = new Map<string, WatchEntry | null>();
  private marks = 0;

  /** A state holding `watch`'s entries (a stored watch: no change to take). */
  constructor(watch: CheckpointWatch = {}) {
    for (const key in watch) this.flowOf(key.slice(0, key.indexOf("|"))).slots.set(key, createSlot(key, watch[key]!));
  }

  /** Every entry, by key. */
  *entries(): Generator<[string, WatchEntry]> {
    for (const { slots } of this.flows.values()) for (const [key, slot] of slots) yield [key, slot.entry];
  }

  /** The keys whose entry changed since the last call, each with its entry now (null: gone). */
  takeChanges(): ReadonlyMap<string, WatchEntry | null> {
    const changes = this.changed;
    this.changed = new Map();
    return changes;
  }

  /** detectStaleCheckpoints(ft, this watch, now, thresholds): its findings; the watch becomes its watch. */
  judge(ft: FlowTranslation, now: number, thresholds: TranslationThresholds = defaultTranslationThresholds): Finding[] {
    if (!ft.syncsLoaded) return [];
    const mark = ++this.marks;
    const flow = this.flowOf(ft.flow);
    const { slots } = flow;
    const groups = new Map<string, GroupPositions>();
    const findings: Finding[] = [];
    // Slots kept by this judgement, and those of rows owed last time and not now (removed unless another row keeps
    // them): when that is every slot of the flow, nothing else is left to remove.
    let kept = 0;
    const paid: Slot[] = [];
    const keep = (slot: Slot) => {
      if (slot.mark !== mark) kept++;
      slot.mark = mark;
    };
    for (const g of ft.groups) {
      const groupPrefix = `${ft.flow}|${g.group}|`;
      const last = flow.groups.get(g.group);
      if (g.unknown !== null) {
        // Not judged: the group's clocks are kept as they were until its offsets are read again.
        slots.forEach((slot, key) => {
          if (key.startsWith(groupPrefix)) keep(slot);
        });
        if (last !== undefined) groups.set(g.group, last);
        continue;
      }
      // The rows' columns: a row is made only for a finding.
      const rows = readGroupRows(g);
      const thresholdMs = resolveCheckpointStaleMs(ft.checkpointTiming, rows.hasCheckpoint(), thresholds.checkpointStaleMs);
      if (thresholdMs === null) continue;
      const positions: GroupPositions = last ?? { topics: [], partitions: [], slots: [] };
      groups.set(g.group, positions);
      for (let i = 0; i < rows.length; i++) {
        const topic = rows.topic(i);
        const partition = rows.partition(i);
        const aligned = positions.topics[i] === topic && positions.partitions[i] === partition;
        const held = aligned ? positions.slots[i] : undefined;
        const owed = rows.isCheckpointOwed(i);
        if (!aligned) {
          positions.topics[i] = topic;
          positions.partitions[i] = partition;
        }
        if (!owed) {
          if (held !== undefined && held.live && held.mark !== mark && held.mark !== -mark) {
            held.mark = -mark;
            paid.push(held);
          }
          positions.slots[i] = undefined;
          continue;
        }
        const checkpoint = rows.checkpoint(i);
        let slot = held !== undefined && held.live ? held : undefined;
        if (slot === undefined) {
          const key = internPrefixedPartitionKey(groupPrefix, topic, partition);
          slot = slots.get(key);
          if (slot === undefined) {
            slots.set(key, (slot = createOwedSlot(key, checkpoint, now)));
            this.changed.set(key, slot.entry);
          }
        }
        if (!isSameCheckpoint(slot, checkpoint)) {
          owe(slot, checkpoint, now);
          this.changed.set(slot.key, slot.entry);
        }
        // Otherwise still owed since the same checkpoint: the entry stays as it is (no new object, nothing to write).
        keep(slot);
        positions.slots[i] = slot;
        const { dueSince } = slot.entry;
        const checkpointOld = checkpoint === null || now - checkpoint.at > thresholdMs;
        if (now - dueSince > thresholdMs && checkpointOld) {
          const p = rows.row(i);
          findings.push(staleFinding(ft, g, p, { expected: isCheckpointOwed(p)!, owedMs: now - dueSince, thresholdMs }, now));
        }
      }
      positions.topics.length = positions.partitions.length = positions.slots.length = rows.length;
    }
    flow.groups = groups;
    // What this judgement did not keep is gone: paid, no longer owed, or its group left.
    const size = slots.size;
    let removed = 0;
    for (const slot of paid) {
      if (slot.mark === mark) continue;
      this.remove(slots, slot);
      removed++;
    }
    // Others only when a group left, its rows moved, or the watch was read from the store (forEach: no entry
    // array per slot, 190,000 a cycle).
    if (kept + removed === size) return findings;
    slots.forEach((slot) => {
      if (slot.mark !== mark) this.remove(slots, slot);
    });
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
    const owedSince = this.flows.get(ft.flow)?.slots.get(key)?.entry.dueSince;
    return thresholdMs !== null && owedSince !== undefined && now - owedSince <= thresholdMs;
  }

  private remove(slots: Map<string, Slot>, slot: Slot): void {
    slot.live = false;
    slots.delete(slot.key);
    this.changed.set(slot.key, null);
  }

  private flowOf(id: string): FlowSlots {
    let flow = this.flows.get(id);
    if (flow === undefined) this.flows.set(id, (flow = { slots: new Map(), groups: new Map() }));
    return flow;
  }
}

/** A checkpoint owed from `now` on. */
function createOwedSlot(key: string, checkpoint: CheckpointOffsets, now: number): Slot {
  const slot: Slot = { key, entry: { checkpoint: null, dueSince: now }, upstream: null, downstream: null, valid: true, mark: 0, live: true };
  owe(slot, checkpoint, now);
  return slot;
}

/** The slot's entry becomes a new one: owed from `now` on since `checkpoint`. */
function owe(slot: Slot, checkpoint: CheckpointOffsets, now: number): void {
  slot.valid = true;
  if (checkpoint === null) {
    slot.entry = { checkpoint: null, dueSince: now };
    slot.upstream = slot.downstream = null;
    return;
  }
  slot.entry = { checkpoint: `${checkpoint.upstream}:${checkpoint.downstream}`, dueSince: now };
  slot.upstream = checkpoint.upstream;
  slot.downstream = checkpoint.downstream;
}

/** A slot for a stored entry (its identity parsed once). */
function createSlot(key: string, entry: WatchEntry): Slot {
  if (entry.checkpoint === null) return { key, entry, upstream: null, downstream: null, valid: true, mark: 0, live: true };
  const match = /^(-?\d+):(-?\d+)$/.exec(entry.checkpoint);
  const [upstream, downstream] = match === null ? [null, null] : [BigInt(match[1]!), BigInt(match[2]!)];
  const valid = upstream !== null && `${upstream}:${downstream}` === entry.checkpoint;
  return { key, entry, upstream, downstream, valid, mark: 0, live: true };
}

/** Whether the slot's identity names this checkpoint (as detectors.ts's isSameCheckpoint). */
function isSameCheckpoint(slot: Slot, checkpoint: CheckpointOffsets): boolean {
  if (!slot.valid) return false;
  if (slot.upstream === null || checkpoint === null) return slot.upstream === null && checkpoint === null;
  return slot.upstream === checkpoint.upstream && slot.downstream === checkpoint.downstream;
}
