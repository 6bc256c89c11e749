/**
 * A per-partition section of the stored rule memory kept as numbers (memory-persistence.ts): per flow, every stored
 * entry has a slot, and the store holds the flow's slots in chunks of `chunkSlots` — one row of the entries' numbers
 * (`<kind>|<flow>|<chunk>`: little-endian float64s, `width` per slot, NaN where a slot holds nothing, base64 in the
 * text column) and one row of the slots' keys (`<kind>-keys|<flow>|<chunk>`: a JSON array), written only when the
 * chunk's keys change. A cycle rewrites the chunks whose numbers changed: at 100,000 partitions the offset-sync
 * markers changed ~10,000 entries a cycle, each a JSON string, a change object and an insert of a row of its own,
 * where the chunks are ~100 rows of bytes copied from a Float64Array.
 *
 * A section whose entries also hold texts (`textWidth` of them: MM2_POSITION_MOVED's topic ID and connector) stores
 * them in a third row per chunk (`<kind>-texts|<flow>|<chunk>`: a JSON array, `textWidth` strings or null per slot),
 * written, as the keys, only when a text of the chunk changes: a topic ID changes at a topic reset, not each cycle.
 *
 * A chunk row names its flow, so each belongs to its flow's shard (rule-memory.ts ownerOfMemoryEntry).
 */
import type { Text } from "./mark-columns";
import type { MemoryEntryChange } from "./memory-persistence";

/** Slots per chunk row: 16 KiB of numbers for a width of 2. */
export const chunkSlots = 1024;

/** A flow's slots. */
interface FlowSlots {
  keys: string[];
  slotOf: Map<string, number>;
  /** `width` numbers per slot; NaN in the first: no entry. */
  values: Float64Array;
  /** `textWidth` texts per slot (null: none). */
  texts: (string | null)[];
  live: number;
  /** Chunks whose numbers, keys and texts differ from the store's. */
  dirty: Set<number>;
  dirtyKeys: Set<number>;
  dirtyTexts: Set<number>;
  /** Chunks the store holds (a compaction deletes those past the end). */
  storedChunks: number;
}

/** Slots of keys without an entry are reclaimed once they outnumber the live ones by this much. */
const maxIdleSlots = 4096;

/** The stored entries of one section by their numbers, and the rows that write a cycle's changes. */
export class PackedMarks {
  private readonly flows = new Map<string, FlowSlots>();
  readonly keysKind: string;
  readonly textsKind: string;

  /** `kind`: the rows' key prefix (no `|`); `width`: numbers per entry; `textWidth`: texts per entry. */
  constructor(
    readonly kind: string,
    private readonly width: number,
    private readonly textWidth = 0,
  ) {
    this.keysKind = `${kind}-keys`;
    this.textsKind = `${kind}-texts`;
  }

  /** Stores `key`'s entry as column values at `slot` of `columns` (its first `width`) and of `texts` (every one). */
  setFromColumns(
    key: string, columns: readonly Float64Array[], slot: number, texts: readonly (readonly Text[])[] = [],
  ): void {
    const flow = this.reserveFlow(flowOf(key));
    const at = reserveSlot(flow, key, this.width);
    const base = at * this.width;
    if (Number.isNaN(flow.values[base]!)) flow.live++;
    for (let k = 0; k < this.width; k++) flow.values[base + k] = columns[k]![slot]!;
    flow.dirty.add(Math.floor(at / chunkSlots));
    for (let k = 0; k < this.textWidth; k++) putText(flow, at, this.textWidth, k, texts[k]![slot]);
  }

  /** Stores `key`'s entry as `numbers` (`width` of them, the first never NaN) and `texts` (`textWidth` of them). */
  setNumbers(key: string, numbers: ArrayLike<number>, texts: readonly Text[] = []): void {
    const flow = this.reserveFlow(flowOf(key));
    const at = reserveSlot(flow, key, this.width);
    const base = at * this.width;
    if (Number.isNaN(flow.values[base]!)) flow.live++;
    for (let k = 0; k < this.width; k++) flow.values[base + k] = numbers[k]!;
    flow.dirty.add(Math.floor(at / chunkSlots));
    for (let k = 0; k < this.textWidth; k++) putText(flow, at, this.textWidth, k, texts[k]);
  }

  /**
   * As setNumbers, unless `key`'s entry is `numbers` already (NaN equal to NaN): its chunk is then not rewritten.
   * `flowName`: the flow `key` names, when the caller knows it (no slice of the key to look it up).
   */
  update(key: string, numbers: ArrayLike<number>, flowName = flowOf(key)): void {
    const flow = this.reserveFlow(flowName);
    const at = reserveSlot(flow, key, this.width);
    const base = at * this.width;
    const live = !Number.isNaN(flow.values[base]!);
    let same = live;
    for (let k = 0; same && k < this.width; k++) same = Object.is(flow.values[base + k], numbers[k]);
    if (same) return;
    if (!live) flow.live++;
    for (let k = 0; k < this.width; k++) flow.values[base + k] = numbers[k]!;
    flow.dirty.add(Math.floor(at / chunkSlots));
  }

  /** Forgets `key`'s entry (of flow `flowName`); whether it had one. */
  delete(key: string, flowName = flowOf(key)): boolean {
    const flow = this.flows.get(flowName);
    const at = flow?.slotOf.get(key);
    if (flow === undefined || at === undefined || Number.isNaN(flow.values[at * this.width]!)) return false;
    flow.values.fill(Number.NaN, at * this.width, (at + 1) * this.width);
    flow.live--;
    flow.dirty.add(Math.floor(at / chunkSlots));
    return true;
  }

  /** Whether `key` has an entry. */
  has(key: string): boolean {
    const flow = this.flows.get(flowOf(key));
    const at = flow?.slotOf.get(key);
    return flow !== undefined && at !== undefined && !Number.isNaN(flow.values[at * this.width]!);
  }

  /** The keys with an entry. */
  listKeys(): string[] {
    const keys: string[] = [];
    for (const flow of this.flows.values()) {
      for (let at = 0; at < flow.keys.length; at++) {
        if (!Number.isNaN(flow.values[at * this.width]!)) keys.push(flow.keys[at]!);
      }
    }
    return keys;
  }

  /**
   * Learns the store's rows of this section (either kind), the flows they name replacing what was known of them (a shard
   * gained, read again); calls `visit` with every entry they hold.
   */
  learn(rows: readonly (readonly [string, string])[], visit: PackedEntryVisitor): void {
    const decoded = decodePackedRows(rows, this.kind, this.width, this.textWidth);
    for (const [name, stored] of decoded) {
      const flow = createFlowSlots(stored.chunks * chunkSlots, this.width);
      flow.values.set(stored.values);
      flow.texts = stored.texts;
      flow.storedChunks = stored.chunks;
      // A slot without a key (a damaged row) holds nothing and names no entry.
      for (let at = 0; at < stored.keys.length; at++) {
        const key = stored.keys[at];
        flow.keys.push(key ?? "");
        if (key === undefined) flow.values.fill(Number.NaN, at * this.width, (at + 1) * this.width);
        else {
          flow.slotOf.set(key, at);
          if (!Number.isNaN(flow.values[at * this.width]!)) flow.live++;
        }
      }
      // Numbers past the last key name no entry either.
      flow.values.fill(Number.NaN, stored.keys.length * this.width);
      this.flows.set(name, flow);
    }
    forEachPackedEntry(decoded, this.width, visit, this.textWidth);
  }

  /** Adds the rows of the chunks changed since the last flush to `changes`, as stored from now on. */
  flush(changes: MemoryEntryChange[]): void {
    for (const [name, flow] of this.flows) {
      if (flow.dirty.size === 0 && flow.dirtyKeys.size === 0 && flow.dirtyTexts.size === 0) continue;
      if (flow.keys.length - flow.live > Math.max(maxIdleSlots, flow.live)) this.compact(name, flow);
      for (const chunk of flow.dirty) {
        const from = chunk * chunkSlots * this.width;
        const to = Math.min(flow.keys.length, (chunk + 1) * chunkSlots) * this.width;
        const bytes = Buffer.from(flow.values.buffer, flow.values.byteOffset + from * 8, (to - from) * 8);
        changes.push({ key: `${this.kind}|${name}|${chunk}`, value: bytes.toString("base64") });
      }
      for (const chunk of flow.dirtyKeys) {
        const keys = flow.keys.slice(chunk * chunkSlots, (chunk + 1) * chunkSlots);
        changes.push({ key: `${this.keysKind}|${name}|${chunk}`, value: JSON.stringify(keys) });
      }
      for (const chunk of flow.dirtyTexts) {
        const texts = flow.texts.slice(chunk * chunkSlots * this.textWidth, (chunk + 1) * chunkSlots * this.textWidth);
        changes.push({ key: `${this.textsKind}|${name}|${chunk}`, value: JSON.stringify(texts) });
      }
      const chunks = Math.ceil(flow.keys.length / chunkSlots);
      for (let chunk = chunks; chunk < flow.storedChunks; chunk++) {
        changes.push({ key: `${this.kind}|${name}|${chunk}`, value: null });
        changes.push({ key: `${this.keysKind}|${name}|${chunk}`, value: null });
        if (this.textWidth > 0) changes.push({ key: `${this.textsKind}|${name}|${chunk}`, value: null });
      }
      flow.storedChunks = chunks;
      flow.dirty.clear();
      flow.dirtyKeys.clear();
      flow.dirtyTexts.clear();
    }
  }

  /** The slots of flow `name` (made when new). */
  private reserveFlow(name: string): FlowSlots {
    let flow = this.flows.get(name);
    if (flow === undefined) this.flows.set(name, (flow = createFlowSlots(0, this.width)));
    return flow;
  }

  /** The flow with only its entries' slots, every chunk rewritten. */
  private compact(name: string, flow: FlowSlots): void {
    const compacted = createFlowSlots(flow.live, this.width);
    const textWidth = this.textWidth;
    for (let at = 0; at < flow.keys.length; at++) {
      if (Number.isNaN(flow.values[at * this.width]!)) continue;
      const to = compacted.keys.length;
      compacted.keys.push(flow.keys[at]!);
      compacted.slotOf.set(flow.keys[at]!, to);
      compacted.values.set(flow.values.subarray(at * this.width, (at + 1) * this.width), to * this.width);
      for (let k = 0; k < textWidth; k++) compacted.texts[to * textWidth + k] = flow.texts[at * textWidth + k] ?? null;
      compacted.live++;
    }
    compacted.storedChunks = flow.storedChunks;
    for (let chunk = 0; chunk * chunkSlots < compacted.keys.length; chunk++) {
      compacted.dirty.add(chunk);
      compacted.dirtyKeys.add(chunk);
      if (textWidth > 0) compacted.dirtyTexts.add(chunk);
    }
    Object.assign(flow, compacted);
    this.flows.set(name, flow);
  }
}

/** A flow's rows as read: its keys, numbers and texts by slot, and how many chunks. */
interface StoredFlow {
  keys: string[];
  values: Float64Array;
  texts: (string | null)[];
  chunks: number;
}

/** Called with a stored entry's key, numbers and texts (`textWidth` of them). */
export type PackedEntryVisitor = (key: string, numbers: number[], texts: (string | null)[]) => void;

/**
 * The flows of a section's rows (`<kind>|…`, `<kind>-keys|…` and, with texts, `<kind>-texts|…`). Throws when a row
 * is not one (not base64 of whole slots, keys not a JSON array of strings, texts not one of strings or null).
 */
export function decodePackedRows(
  rows: readonly (readonly [string, string])[],
  kind: string,
  width: number,
  textWidth = 0,
): Map<string, StoredFlow> {
  const flows = new Map<string, StoredFlow>();
  const flowAt = (name: string, chunk: number) => {
    let flow = flows.get(name);
    if (flow === undefined) flows.set(name, (flow = { keys: [], values: new Float64Array(0), texts: [], chunks: 0 }));
    flow.chunks = Math.max(flow.chunks, chunk + 1);
    return flow;
  };
  const numberRows: [StoredFlow, number, Buffer][] = [];
  for (const [key, value] of rows) {
    const [rowKind, name, chunkText] = key.split("|");
    const chunk = Number(chunkText);
    if (name === undefined || !Number.isInteger(chunk) || chunk < 0) {
      throw new Error(`stored entry ${key} is not a chunk row`);
    }
    const flow = flowAt(name, chunk);
    if (rowKind === kind) {
      const bytes = Buffer.from(value, "base64");
      if (bytes.length % (8 * width) !== 0 || bytes.length > 8 * width * chunkSlots) {
        throw new Error(`stored entry ${key} is not whole slots`);
      }
      numberRows.push([flow, chunk, bytes]);
      continue;
    }
    if (rowKind === `${kind}-texts`) {
      const texts: unknown = JSON.parse(value);
      const isText = (t: unknown) => t === null || typeof t === "string";
      if (!Array.isArray(texts) || texts.length > chunkSlots * textWidth || !texts.every(isText)) {
        throw new Error(`stored entry ${key} is not a list of texts`);
      }
      (texts as (string | null)[]).forEach((t, i) => (flow.texts[chunk * chunkSlots * textWidth + i] = t));
      continue;
    }
    const keys: unknown = JSON.parse(value);
    if (!Array.isArray(keys) || keys.length > chunkSlots || !keys.every((k) => typeof k === "string")) {
      throw new Error(`stored entry ${key} is not a list of keys`);
    }
    (keys as string[]).forEach((k, i) => (flow.keys[chunk * chunkSlots + i] = k));
  }
  for (const flow of flows.values()) flow.values = new Float64Array(flow.chunks * chunkSlots * width).fill(Number.NaN);
  for (const [flow, chunk, bytes] of numberRows) {
    // Copied out of the buffer: a base64 decode's bytes need not be aligned for a Float64Array.
    const numbers = new Float64Array(bytes.length / 8);
    new Uint8Array(numbers.buffer).set(bytes);
    flow.values.set(numbers, chunk * chunkSlots * width);
  }
  return flows;
}

/**
 * Calls `visit` with the key, numbers and texts of every entry of decoded rows (a slot with a key and numbers; a text
 * its rows lack is null).
 */
export function forEachPackedEntry(
  flows: Map<string, StoredFlow>, width: number, visit: PackedEntryVisitor, textWidth = 0,
): void {
  for (const flow of flows.values()) {
    for (let at = 0; at < flow.keys.length; at++) {
      const key = flow.keys[at];
      if (key === undefined || Number.isNaN(flow.values[at * width]!)) continue;
      const texts = Array.from({ length: textWidth }, (_, k) => flow.texts[at * textWidth + k] ?? null);
      visit(key, Array.from(flow.values.subarray(at * width, (at + 1) * width)), texts);
    }
  }
}

/** The flow's slot of `key`, made when new (its chunk's keys then rewritten). */
function reserveSlot(flow: FlowSlots, key: string, width: number): number {
  let at = flow.slotOf.get(key);
  if (at === undefined) {
    at = flow.keys.length;
    flow.keys.push(key);
    flow.slotOf.set(key, at);
    if ((at + 1) * width > flow.values.length) flow.values = growValues(flow.values, 2 * flow.values.length);
    flow.dirtyKeys.add(Math.floor(at / chunkSlots));
  }
  return at;
}

function createFlowSlots(capacity: number, width: number): FlowSlots {
  return {
    keys: [],
    slotOf: new Map(),
    values: new Float64Array(Math.max(chunkSlots, capacity) * width).fill(Number.NaN),
    texts: [],
    live: 0,
    dirty: new Set(),
    dirtyKeys: new Set(),
    dirtyTexts: new Set(),
    storedChunks: 0,
  };
}

function growValues(values: Float64Array, length: number): Float64Array {
  const grown = new Float64Array(length).fill(Number.NaN);
  grown.set(values);
  return grown;
}

/**
 * Sets text `k` of slot `at` (absent is stored as null), its chunk's texts row rewritten when it differs. A new slot's
 * texts are written with its keys.
 */
function putText(flow: FlowSlots, at: number, textWidth: number, k: number, text: Text): void {
  const i = at * textWidth + k;
  const value = text ?? null;
  // A slot not yet written reads undefined (a hole), never equal.
  if (flow.texts[i] === value) return;
  flow.texts[i] = value;
  flow.dirtyTexts.add(Math.floor(at / chunkSlots));
}

/** The flow a flow partition key (`<flow>|<topic>|<partition>`) names. */
function flowOf(key: string): string {
  return key.slice(0, key.indexOf("|"));
}
