/**
 * One flow's checkpoint watch entries as columns (checkpoint-watch.ts): a slot per `<flow>|<group>|<topic>|<partition>`
 * key, its checkpoint identity and `dueSince` as numbers, no object per entry. An entry is made as the store keeps it
 * (`{ checkpoint: "<upstream>:<downstream>" | null, dueSince }`) only when one is read (entries, changes).
 *
 * A slot outlives its entry: when MM2 has paid the checkpoint the entry is gone (LIVE → DORMANT) but the slot keeps its
 * key, so the same group partition owing again the next cycle costs no key and no lookup. A dormant slot no group row
 * named in a judgement is freed.
 */

/** How a slot's checkpoint identity is held. */
export const Identity = {
  /** No checkpoint yet (`checkpoint: null`). */
  NONE: 0,
  /** Both offsets in `upstream`/`downstream`, exact (safe integers). */
  NUMBERS: 1,
  /** Offsets beyond 2^53: as bigints in `bigs`, the identity text in `texts`. */
  BIGINTS: 2,
  /** A stored identity that is not two offsets as `${bigint}` writes them: it never names a checkpoint. */
  INVALID: 3,
} as const;

/** A slot's life. */
export const Life = { FREE: 0, DORMANT: 1, LIVE: 2 } as const;

/** A checkpoint entry as the store keeps it. */
export interface WatchEntry {
  checkpoint: string | null;
  dueSince: number;
}

/** The slots of one flow. */
export class WatchSlots {
  /** `flow`: the flow the slots' keys name (`<flow>|…`). */
  constructor(readonly flow: string) {}

  /** Slot → key ("" when free). */
  readonly keys: string[] = [];
  /** Key → slot, live and dormant. */
  readonly byKey = new Map<string, number>();
  life = new Uint8Array(0);
  identity = new Uint8Array(0);
  upstream = new Float64Array(0);
  downstream = new Float64Array(0);
  dueSince = new Float64Array(0);
  /** The judgement that last kept the slot's entry, and the last that named the slot at all. */
  kept = new Float64Array(0);
  seen = new Float64Array(0);
  /** Identities held as bigints, or as text only (Identity.BIGINTS, INVALID), by slot. */
  readonly bigs = new Map<number, { upstream: bigint; downstream: bigint }>();
  readonly texts = new Map<number, string>();
  /** Live entries. */
  size = 0;
  /** Keys whose entry changed since the last takeChanges, each with the slot it had then. */
  readonly changed = new Map<string, number>();
  private readonly free: number[] = [];

  /** The slot of `key` (live or dormant), or -1. */
  find(key: string): number {
    return this.byKey.get(key) ?? -1;
  }

  /** A new dormant slot for `key`. */
  add(key: string): number {
    const slot = this.free.pop() ?? this.keys.length;
    if (slot === this.keys.length) {
      this.keys.push(key);
      this.reserve(slot);
    } else {
      this.keys[slot] = key;
    }
    this.byKey.set(key, slot);
    this.life[slot] = Life.DORMANT;
    this.kept[slot] = this.seen[slot] = 0;
    return slot;
  }

  /** The slot's entry becomes live (or stays live) with this identity, owed since `dueSince`. */
  setNumbers(slot: number, upstream: number, downstream: number, dueSince: number): void {
    this.clearText(slot);
    this.identity[slot] = Identity.NUMBERS;
    this.upstream[slot] = upstream;
    this.downstream[slot] = downstream;
    this.enliven(slot, dueSince);
  }

  /** As setNumbers, without a checkpoint. */
  setNone(slot: number, dueSince: number): void {
    this.clearText(slot);
    this.identity[slot] = Identity.NONE;
    this.enliven(slot, dueSince);
  }

  /** As setNumbers, for offsets beyond 2^53. */
  setBigints(slot: number, upstream: bigint, downstream: bigint, dueSince: number): void {
    this.identity[slot] = Identity.BIGINTS;
    this.bigs.set(slot, { upstream, downstream });
    this.texts.set(slot, `${upstream}:${downstream}`);
    this.enliven(slot, dueSince);
  }

  /** As setNumbers, for a stored identity that names no checkpoint. */
  setInvalid(slot: number, text: string, dueSince: number): void {
    this.bigs.delete(slot);
    this.identity[slot] = Identity.INVALID;
    this.texts.set(slot, text);
    this.enliven(slot, dueSince);
  }

  /** The slot's entry is gone; the slot stays for its key. */
  retire(slot: number): void {
    this.life[slot] = Life.DORMANT;
    this.size--;
    this.clearText(slot);
  }

  /** The slot is free for another key. */
  release(slot: number): void {
    if (this.life[slot] === Life.LIVE) this.retire(slot);
    this.byKey.delete(this.keys[slot]!);
    this.keys[slot] = "";
    this.life[slot] = Life.FREE;
    this.free.push(slot);
  }

  /**
   * Calls `visit` with each changed key and its live slot (−1: its entry is gone), and forgets them: the caller reads
   * the entry's numbers from the columns, no entry made.
   */
  takeChanges(visit: (key: string, slots: WatchSlots, slot: number) => void): void {
    for (const [key, slot] of this.changed) visit(key, this, this.keys[slot] === key && this.life[slot] === Life.LIVE ? slot : -1);
    this.changed.clear();
  }

  /** The slot's entry as the store keeps it. */
  entry(slot: number): WatchEntry {
    return { checkpoint: this.identityText(slot), dueSince: this.dueSince[slot]! };
  }

  private identityText(slot: number): string | null {
    switch (this.identity[slot]) {
      case Identity.NONE:
        return null;
      case Identity.NUMBERS:
        // A safe integer prints as its bigint does.
        return `${this.upstream[slot]}:${this.downstream[slot]}`;
      default:
        return this.texts.get(slot)!;
    }
  }

  private enliven(slot: number, dueSince: number): void {
    if (this.life[slot] !== Life.LIVE) this.size++;
    this.life[slot] = Life.LIVE;
    this.dueSince[slot] = dueSince;
  }

  private clearText(slot: number): void {
    if (this.identity[slot]! < Identity.BIGINTS) return;
    this.bigs.delete(slot);
    this.texts.delete(slot);
  }

  private reserve(slot: number): void {
    if (slot < this.life.length) return;
    const size = Math.max(slot + 1, this.life.length * 2, 1024);
    this.life = grow(this.life, new Uint8Array(size));
    this.identity = grow(this.identity, new Uint8Array(size));
    this.upstream = grow(this.upstream, new Float64Array(size));
    this.downstream = grow(this.downstream, new Float64Array(size));
    this.dueSince = grow(this.dueSince, new Float64Array(size));
    this.kept = grow(this.kept, new Float64Array(size));
    this.seen = grow(this.seen, new Float64Array(size));
  }
}

function grow<T extends Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
