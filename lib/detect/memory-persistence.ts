/**
 * Persisting every rule's memory as entries — the one scheme (issue 32): the engine's held events,
 * examined syncs and level findings, the detectors' marks and the translation rule's checkpoint
 * watch — writing per cycle only what changed. At 100,000 flow partitions the memory is tens of MB
 * of JSON; rewriting it whole every cycle was most of a cycle's work. The store keeps rows (key → text); a cycle
 * writes the rows `listChanges` returns and deletes those whose value is null; `loadDetectorMemoryEntries` reads
 * them back (through parseDetectorMemory: an unreadable memory starts empty, with the reason). Most entries are a
 * row of JSON each; the sections that change by the ten thousand a cycle at 100,000 partitions (the offset-sync
 * markers, the checkpoint watch, and MM2_POSITION_MOVED's marks once a minute) are stored as numbers, a flow's entries
 * in chunk rows (packed-marks.ts): a JSON string, a change object and a row per changed entry cost ~200 ms of CPU and
 * ~46 MiB written a cycle there.
 *
 * ENTRIES
 * - `cycle-at`: the `now` of the cycle the memory is of. Values equal to it are stored as null and
 *   restored from it (marks' `seenAt`, which every mark has; findings observed this cycle).
 * - `event|<finding key>`: a held event (exact).
 * - `finding|<finding key>`: a level finding of the last cycle (exact).
 * - `syncs|<flow>|<chunk>` and `syncs-keys|<flow>|<chunk>`: the last examined offset sync of each flow
 *   partition as numbers, [upstream, downstream] (exact: a step judged twice, against a log start that moved on, can
 *   look like a loss). A marker whose offsets are not exact as numbers (beyond 2^53) is a JSON row,
 *   `sync|<flow partition key>`, as every marker was in the versions before: such rows are read, and the next write
 *   stores them as numbers and deletes them (an upgrade).
 * - `stall|<flow partition key>`: TASK_STALLED's mark, only once the position stood still for a
 *   cycle. A mark made this cycle (the position moved, or nothing waits) is not stored: it changes
 *   every cycle on every busy partition. After a restart such a partition starts a new mark, so a
 *   stall that began just before Gapwatch stopped is reported up to that downtime later — never
 *   sooner (an older stored mark would count time the partition was moving, a false alarm).
 * - `committed-marks|<flow>|<chunk>`, `committed-marks-keys|…` and `committed-marks-texts|…`: MM2_POSITION_MOVED's
 *   mark of each flow partition as numbers, [committed, highest, replacedCommitted, goneSince] (NaN: absent), and
 *   texts, [topicId, connector]. Written at once when it appears, changes topic, goes down or holds a pending forward
 *   move (committed > highest); while MM2 just advances, at most once per `advanceWriteMs`: the stored positions,
 *   not a time, so they cannot be kept once per flow, and a busy partition's mark changes every cycle. After a restart
 *   the stored mark can trail by that much progress: a move back made during the downtime by less than that is
 *   missed, and the range of a forward move can start that much early. Nothing is reported that did not happen. A
 *   mark whose offsets are not exact as numbers is a JSON row, `committed|<flow partition key>`, as every mark was in
 *   the versions before (upgraded as `sync|`).
 * - `watches|<flow>|<chunk>` and `watches-keys|<flow>|<chunk>`: the translation rule's checkpoint watch entry of
 *   each `<flow>|<group>|<topic>|<partition>` (checkpoint-watch.ts) as numbers, [dueSince, upstream, downstream] of
 *   its checkpoint (NaN without one); an entry whose checkpoint is not two offsets exact as numbers is a JSON row,
 *   `watch|<key>` `[checkpoint, dueSince]`, as every entry was in the versions before (upgraded as `sync|`). Exact
 *   (an older dueSince would raise
 *   CHECKPOINT_STALE early, a newer one late). Listed from the changes the watch itself records
 *   (CheckpointWatchState.takeChanges): at 100,000 partitions ~24,000 of 190,000 entries a cycle,
 *   the checkpoints MM2 emitted; a watch this persister has not seen (after a restart, a failed
 *   write or a shard handover) is compared whole once. Not written less often, as every change
 *   matters after a restart: a new or changed entry not written reads back as absent or naming an
 *   older checkpoint, so the restart starts its clock anew, late — CHECKPOINT_STALE (and
 *   TRANSLATION_ERROR's wait for a rewound checkpoint) would come that much later; a deletion not
 *   written leaves an old clock that a debt owed again since the same checkpoint would continue,
 *   raising CHECKPOINT_STALE early.
 * - `watch-entries`: present (value 1) once the watch is stored as entries; without it the
 *   keeper reads the watch the versions before kept under `checkpoint-watch` (lib/pipeline).
 *
 * FINDINGS OF THE WRITING CYCLE (`finding|` with observedAt null) are restored at `cycle-at`,
 * except the translation rule's (TRANSLATION_ERROR, CHECKPOINT_STALE), which read as of the
 * cycle that loads them (`readAt`), as the versions before kept them: a CHECKPOINT_STALE is stored
 * restated at its debt's start (owedForMs 0, that time as `restatedAt`), so a firing one whose
 * owedForMs grows every cycle writes nothing until it changes, and is restated at `readAt`.
 */
import type { CheckpointWatchState } from "./checkpoint-watch";
import { Identity } from "./watch-slots";
import { createDetectorMemory, parseDetectorMemory } from "./memory";
import { createRoutineAdvanceTest, makeCommittedMark, readCommittedParts, readCommittedTable } from "./committed-marks";
import {
  findMarkSlot, findViewTable, type MarkColumnsSpec, type MarkTable, readExactOffset, readMark, readMarkTable,
  type Text,
} from "./mark-columns";
import { decodePackedRows, forEachPackedEntry, PackedMarks } from "./packed-marks";
import { readSectionChanges, type SectionChanges } from "./section-changes";
import { StallColumn } from "./stall-marks";
import { type CheckpointWatch, restateStaleCheckpoint } from "./translation-detectors";
import {
  alignWrittenMarks,
  createWrittenMarks,
  findWrittenSlot,
  forEachWrittenMark,
  isWrittenSame,
  readWrittenMark,
  recordWrittenMark,
  type WrittenMarks,
} from "./written-marks";
import { type CommittedMark, type DetectorMemory, type Finding, FindingType, type PositionMark } from "./types";

/** One entry to write (`value` JSON) or to delete (`value` null). */
export interface MemoryEntryChange {
  key: string;
  value: string | null;
}

/** The memory a persister lists: the detector sections, and the checkpoint watch when the caller keeps one. */
export type PersistedMemory = DetectorMemory & { checkpointWatch?: CheckpointWatchState };

/** Lists, cycle after cycle, what to write so the store holds the latest memory. */
export interface MemoryPersister {
  /**
   * The entries of `memory` (from the rules at `now`) that differ from what was written; remembers them as written.
   * Takes the checkpoint watch's changes (CheckpointWatchState.takeChanges).
   */
  listChanges(memory: PersistedMemory, now: number): MemoryEntryChange[];
  /**
   * Learns that the store also holds `entries` (a shard gained, read from the store): the next listChanges compares
   * the memory with them too, deleting those it no longer holds.
   */
  learn(entries: Iterable<readonly [string, string]>): void;
}

/** Routine advances of a committed mark are written at most this often per partition. */
const advanceWriteMs = 60_000;

const prefix = { event: "event|", finding: "finding|", sync: "sync|", stall: "stall|", committed: "committed|", watch: "watch|" } as const;
const cycleAtKey = "cycle-at";
/** Present once the checkpoint watch is stored as `watch|` entries (module comment). */
export const watchEntriesKey = "watch-entries";
/** The translation rule's finding types: those of the writing cycle read as of the loading cycle (module comment). */
const readAtLoadTypes: ReadonlySet<string> = new Set([FindingType.TRANSLATION_ERROR, FindingType.CHECKPOINT_STALE]);

/**
 * How a per-partition section's entries are stored. A columnar section (mark-columns.ts) is compared by its columns
 * (written-marks.ts): an entry's JSON is made from its first `width` number columns and its text columns alone.
 */
interface StoredForm<T> {
  /** The entry's stored JSON. */
  toJson(entry: T): string;
  /** Whether an entry is stored at `now` (else its row is deleted), from the entry and from its columns; absent: always. */
  isStored?(entry: T, now: number): boolean;
  isStoredAt?(table: MarkTable, slot: number, now: number): boolean;
  /** The number columns a columnar entry's stored JSON is made of: the first `width` (with every text column). */
  width: number;
  /** A change `routine` calls ordinary is written at most `advanceWriteMs` after the last write. */
  routine?(before: MarkTable, after: MarkTable): (b: number, a: number) => boolean;
  /** The columns of a plain record of the section's entries (for `routine`). */
  readTable?(section: Readonly<Record<string, T>>): MarkTable;
  /** How the section is stored as numbers (packed-marks.ts); absent: a JSON row per entry. */
  packed?: PackedForm<T>;
}

/**
 * A section stored as numbers: its rows' kind, an entry's numbers and texts (null: not exact, stored as a JSON row),
 * and the entry they make.
 */
interface PackedForm<T> {
  kind: string;
  width: number;
  textWidth: number;
  read(entry: T): PackedParts | null;
  make(numbers: readonly number[], texts: readonly Text[]): T;
}

/** An entry of a packed section as stored: its numbers and texts. */
interface PackedParts {
  numbers: readonly number[];
  texts: readonly Text[];
}

/** The stored JSON of an entry, and when it was written (0: read from the store). */
interface StoredText {
  json: string;
  at: number;
}

/** One per-partition section of the memory as the persister last saw and wrote it. */
interface Section<T> {
  form: StoredForm<T>;
  /** The section of the memory last listed (its unchanged entries are the same objects in the next). */
  seen: Readonly<Record<string, T>>;
  seenSize: number;
  /** The `now` it was listed at, and the id of its SectionChanges (0: none). */
  seenNow: number;
  seenId: number;
  /**
   * The stored rows of a columnar section, as numbers per slot; null until one is listed, and when a plain record is
   * (tests, copies).
   */
  written: WrittenMarks | null;
  /** Stored rows known by their JSON: read from the store and not compared since, or of a plain record section. */
  text: Map<string, StoredText>;
  /** Whether stored keys were ever checked against a memory (those read from the store were not). */
  swept: boolean;
  /** A packed section's stored numbers (null: JSON rows alone). */
  packed: PackedMarks | null;
  /** Keys of a packed section stored as a JSON row (read from a version before, or not exact as numbers). */
  rows: Set<string>;
  /** Keys of JSON rows read from the store, to store as numbers by the next listing (an upgrade). */
  upgrades: string[];
}

function createSection<T>(form: StoredForm<T>): Section<T> {
  const packing = form.packed;
  const packed = packing === undefined ? null : new PackedMarks(packing.kind, packing.width, packing.textWidth);
  const section = { form, seen: {}, seenSize: 0, seenNow: Number.NaN, seenId: 0, written: null, text: new Map() };
  return { ...section, swept: false, packed, rows: new Set(), upgrades: [] };
}

type SyncMarker = DetectorMemory["syncMarkers"][string];
/** The offset-sync markers as numbers: ~10,000 change a cycle at 100,000 partitions (module comment). */
const syncPacking: PackedForm<SyncMarker> = {
  kind: "syncs",
  width: 2,
  textWidth: 0,
  read(marker) {
    const upstream = readExactOffset(marker.upstream);
    const downstream = readExactOffset(marker.downstream);
    return upstream === null || downstream === null ? null : { numbers: [upstream, downstream], texts: [] };
  },
  // As sync-steps.ts makes a marker from its columns.
  make: (numbers) => ({ upstream: String(numbers[0]), downstream: String(numbers[1]) }),
};
const syncForm: StoredForm<SyncMarker> = { toJson: (marker) => JSON.stringify(marker), width: 2, packed: syncPacking };
// A mark made this cycle (movedAt = now) is not stored (module comment); seenAt (the last column) is the cycle's.
const stallForm: StoredForm<PositionMark> = {
  toJson: (mark) => JSON.stringify(encodeStall(mark)),
  isStored: (mark, now) => mark.movedAt !== now,
  isStoredAt: (table, slot, now) => table.columns[StallColumn.movedAt]![slot] !== now,
  width: StallColumn.seenAt,
};
/**
 * MM2_POSITION_MOVED's marks as numbers: every busy partition's mark advances each cycle, and each is written once a
 * minute (module comment) — at 100,000 partitions a cycle of 100,000 JSON rows. The topic ID and connector are texts.
 */
const committedPacking: PackedForm<CommittedMark> = {
  kind: "committed-marks",
  width: 4,
  textWidth: 2,
  read: readCommittedParts,
  make: ([committed, highest, replaced, goneSince], [topicId, connector]) =>
    makeCommittedMark(committed!, highest!, replaced!, goneSince!, topicId, connector),
};
const committedForm: StoredForm<CommittedMark> = {
  toJson: (mark) => JSON.stringify(mark),
  width: 4,
  routine: createRoutineAdvanceTest,
  readTable: readCommittedTable,
  packed: committedPacking,
};

/**
 * A persister that knows the store holds `entries` (what loadDetectorMemoryEntries read; none for
 * an empty store), so its first changes are relative to them.
 */
export function createMemoryPersister(entries: Iterable<readonly [string, string]> = []): MemoryPersister {
  const text = new Map<string, string>();
  const syncs = createSection(syncForm);
  const stalls = createSection(stallForm);
  const committed = createSection(committedForm);
  const watch = createWatchSection();
  const learn = (stored: Iterable<readonly [string, string]>) => {
    const packedRows: [string, string][] = [];
    const committedRows: [string, string][] = [];
    const watchRows: [string, string][] = [];
    for (const [key, value] of stored) {
      if (key.startsWith(prefix.watch)) watch.rows.set(key.slice(prefix.watch.length), value);
      else if (isWatchRow(key)) watchRows.push([key, value]);
      else if (isPackedRow(key, syncPacking)) packedRows.push([key, value]);
      else if (isPackedRow(key, committedPacking)) committedRows.push([key, value]);
      else if (key.startsWith(prefix.sync)) learnRow(syncs, key.slice(prefix.sync.length), value);
      else if (key.startsWith(prefix.stall)) learnEntry(stalls, key.slice(prefix.stall.length), value);
      else if (key.startsWith(prefix.committed)) learnRow(committed, key.slice(prefix.committed.length), value);
      else text.set(key, value);
    }
    if (packedRows.length > 0) learnPacked(syncs, packedRows);
    if (committedRows.length > 0) learnPacked(committed, committedRows);
    // A key with a JSON row too keeps it known: the next listing deletes it.
    if (watchRows.length > 0) watch.packed.learn(watchRows, () => {});
  };
  learn(entries);
  return {
    learn(stored) {
      learn(stored);
      // The rows learnt are checked against the next memory (a sweep), and the watch compared whole.
      for (const section of [syncs, stalls, committed]) section.swept = false;
      watch.seen = null;
    },
    listChanges(memory, now) {
      const changes: MemoryEntryChange[] = [];
      writeText(text, changes, cycleAtKey, String(now));
      listTextChanges(text, changes, prefix.event, memory.events.map((e): [string, string] => [e.finding.key, JSON.stringify(e)]));
      listTextChanges(text, changes, prefix.finding, memory.lastFindings.map((f): [string, string] => [f.key, JSON.stringify(encodeFinding(f, now))]));
      upgradeRows(syncs, changes, prefix.sync);
      listSectionChanges(syncs, memory.syncMarkers, changes, prefix.sync, now);
      syncs.packed!.flush(changes);
      listSectionChanges(stalls, memory.positions, changes, prefix.stall, now);
      upgradeRows(committed, changes, prefix.committed);
      listSectionChanges(committed, memory.committed, changes, prefix.committed, now);
      committed.packed!.flush(changes);
      if (memory.checkpointWatch !== undefined) listWatchChanges(watch, memory.checkpointWatch, changes);
      return changes;
    },
  };
}

/** What stored entries hold: the detector memory (every level finding with it) and the checkpoint watch. */
export interface LoadedMemoryEntries {
  memory: DetectorMemory;
  watch: CheckpointWatch;
  /** Whether the watch is stored as entries (`watch-entries`); if not, it is in the versions' before value. */
  watchStored: boolean;
  error: string | null;
}

/**
 * The memory the entries hold (as written by a persister's changes), as the cycle `readAt` reads it (the translation
 * findings of the writing cycle are restated at it; default: the writing cycle's `cycle-at`). Entries of other
 * versions or damaged ones make the memory and the watch start empty, with the reason, as parseDetectorMemory does.
 */
export function loadDetectorMemoryEntries(entries: Iterable<readonly [string, string]>, readAt?: number): LoadedMemoryEntries {
  const events: unknown[] = [];
  const lastFindings: Record<string, unknown>[] = [];
  const syncs: [string, unknown][] = [];
  const syncRows: [string, string][] = [];
  const stalls: [string, Record<string, unknown>][] = [];
  const committed: [string, unknown][] = [];
  const committedRows: [string, string][] = [];
  const watches: [string, CheckpointWatch[string]][] = [];
  const watchRows: [string, string][] = [];
  let watchStored = false;
  let cycleAt: number | undefined;
  const fail = (error: string): LoadedMemoryEntries => ({ memory: createDetectorMemory(), watch: {}, watchStored, error });
  for (const [key, value] of entries) {
    if (isPackedRow(key, syncPacking)) {
      syncRows.push([key, value]);
      continue;
    }
    if (isPackedRow(key, committedPacking)) {
      committedRows.push([key, value]);
      continue;
    }
    if (isWatchRow(key)) {
      watchRows.push([key, value]);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      return fail(`stored entry ${key} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (key === cycleAtKey) cycleAt = typeof parsed === "number" ? parsed : undefined;
    else if (key === watchEntriesKey) watchStored = true;
    else if (key.startsWith(prefix.watch)) {
      const entry = decodeWatchEntry(parsed);
      if (entry === null) return fail(`stored entry ${key} is not a checkpoint watch entry [checkpoint, dueSince]`);
      watches.push([key.slice(prefix.watch.length), entry]);
    } else if (key.startsWith(prefix.event)) events.push(parsed);
    else if (key.startsWith(prefix.finding)) lastFindings.push(parsed as Record<string, unknown>);
    else if (key.startsWith(prefix.sync)) syncs.push([key.slice(prefix.sync.length), parsed]);
    else if (key.startsWith(prefix.stall)) stalls.push([key.slice(prefix.stall.length), parsed as Record<string, unknown>]);
    else if (key.startsWith(prefix.committed)) committed.push([key.slice(prefix.committed.length), parsed]);
  }
  try {
    readPackedEntries(syncRows, syncPacking, syncs);
    readPackedEntries(committedRows, committedPacking, committed);
    const watchFlows = decodePackedRows(watchRows, watchPacking.kind, watchPacking.width);
    forEachPackedEntry(watchFlows, watchPacking.width, (key, numbers) => {
      const entry = decodeWatchNumbers(numbers);
      if (entry === null) throw new Error(`stored entry ${key} is not a checkpoint watch entry`);
      watches.push([key, entry]);
    });
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  // In key order, as the store lists JSON rows (a section's order is its slots' order).
  const syncMarkers = Object.fromEntries(syncs.sort(compareKeys));
  const watch: CheckpointWatch = Object.fromEntries(watches.sort(compareKeys));
  const positions = Object.fromEntries(stalls.map(([key, mark]) => [key, { ...mark, seenAt: cycleAt }]));
  // Events in the order they were first seen (the store keeps no order), findings by key.
  events.sort((a, b) => firstSeenOf(a) - firstSeenOf(b));
  const at = readAt ?? cycleAt;
  const restated = new Set<string>();
  const findings = lastFindings
    .map((f): Record<string, unknown> => {
      if (f.observedAt !== null && f.observedAt !== undefined) return f;
      if (!readAtLoadTypes.has(String(f.type))) return { ...f, observedAt: cycleAt };
      restated.add(String(f.key));
      return { ...f, observedAt: typeof f.restatedAt === "number" ? f.restatedAt : at };
    })
    .sort((a, b) => String(a.key).localeCompare(String(b.key)));
  const committedMarks = Object.fromEntries(committed.sort(compareKeys));
  const stored = { version: 1, events, syncMarkers, positions, committed: committedMarks, lastFindings: findings };
  const parsed = parseDetectorMemory(stored);
  if (parsed.error !== null || restated.size === 0 || at === undefined) return { ...parsed, watch: parsed.error === null ? watch : {}, watchStored };
  const memory = { ...parsed.memory, lastFindings: parsed.memory.lastFindings.map((f) => (restated.has(f.key) ? restateStaleCheckpoint(f, at) : f)) };
  return { memory, watch, watchStored, error: null };
}

function compareKeys([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether a stored key is one of the checkpoint watch's packed rows (packed-marks.ts). */
function isWatchRow(key: string): boolean {
  return key.startsWith(`${watchPacking.kind}|`) || key.startsWith(`${watchPacking.kind}-keys|`);
}

/** Whether a stored key is one of a packed section's rows (packed-marks.ts). */
function isPackedRow<T>(key: string, packing: PackedForm<T>): boolean {
  const bar = key.indexOf("|");
  const kind = key.slice(0, bar);
  return bar > 0 && (kind === packing.kind || kind === `${packing.kind}-keys` || kind === `${packing.kind}-texts`);
}

/** Adds the entries a packed section's rows hold to `entries`. Throws when a row is not one. */
function readPackedEntries<T>(
  rows: readonly [string, string][], packing: PackedForm<T>, entries: [string, unknown][],
): void {
  const { kind, width, textWidth } = packing;
  const flows = decodePackedRows(rows, kind, width, textWidth);
  const visit = (key: string, numbers: number[], texts: Text[]) => entries.push([key, packing.make(numbers, texts)]);
  forEachPackedEntry(flows, width, visit, textWidth);
}

function firstSeenOf(event: unknown): number {
  const firstSeen = (event as { firstSeen?: unknown } | null)?.firstSeen;
  return typeof firstSeen === "number" ? firstSeen : 0;
}

/** A level finding as stored at `now` (module comment: a CHECKPOINT_STALE of the cycle restated at its debt's start). */
function encodeFinding(finding: Finding, now: number): Omit<Finding, "observedAt"> & { observedAt: number | null; restatedAt?: number } {
  if (finding.observedAt !== now) return finding;
  if (finding.type !== FindingType.CHECKPOINT_STALE) return { ...finding, observedAt: null };
  const start = finding.observedAt - Number(finding.evidence.owedForMs);
  return { ...restateStaleCheckpoint(finding, start), observedAt: null, restatedAt: start };
}

function encodeStall(mark: PositionMark): Omit<PositionMark, "seenAt"> {
  return { position: mark.position, movedAt: mark.movedAt, logEndAtMove: mark.logEndAtMove, notRunningMs: mark.notRunningMs };
}

function writeText(text: Map<string, string>, changes: MemoryEntryChange[], key: string, value: string): void {
  if (text.get(key) === value) return;
  text.set(key, value);
  changes.push({ key, value });
}

/** Entries of one kind compared by their JSON: written when it differs, deleted when gone. */
function listTextChanges(text: Map<string, string>, changes: MemoryEntryChange[], kind: string, now: readonly [string, string][]): void {
  const keys = new Set<string>();
  for (const [key, value] of now) {
    keys.add(kind + key);
    writeText(text, changes, kind + key, value);
  }
  for (const key of text.keys()) {
    if (key.startsWith(kind) && !keys.has(key)) {
      text.delete(key);
      changes.push({ key, value: null });
    }
  }
}

/** A stored row read from the store: compared by its JSON when its entry is next listed. */
function learnEntry<T>(section: Section<T>, key: string, json: string): void {
  section.text.set(key, { json, at: 0 });
  const slot = section.written === null ? -1 : findWrittenSlot(section.written, key);
  if (slot >= 0) section.written!.at[slot] = Number.NaN;
}

/**
 * One per-partition section: a detector's columnar section by its columns (listColumnChanges), any other record by
 * its entries' JSON (listRecordChanges).
 */
function listSectionChanges<T extends object>(section: Section<T>, entries: Readonly<Record<string, T>>, changes: MemoryEntryChange[], kind: string, now: number): void {
  const view = findViewTable(entries);
  const made = readSectionChanges(entries);
  if (view === undefined || made === undefined) listRecordChanges(section, entries, changes, kind, now);
  else listColumnChanges(section, entries, view, made, changes, kind, now);
  section.seen = entries;
  section.seenNow = now;
  section.seenId = made?.id ?? 0;
}

/**
 * A section a detector made (mark-columns.ts), compared with what was written by its numbers, an entry made and
 * serialized only when it changed. One made from the section listed last cycle, dropping no key, is listed from the
 * keys it touched (section-changes.ts): at 100,000 partitions walking every key cost ~170 ms a cycle. Otherwise every
 * slot is compared, and the stored rows of keys gone from it are deleted.
 */
function listColumnChanges<T extends object>(
  section: Section<T>,
  entries: Readonly<Record<string, T>>,
  view: { table: MarkTable; spec: MarkColumnsSpec<T> },
  made: SectionChanges,
  changes: MemoryEntryChange[],
  kind: string,
  now: number,
): void {
  const { table, spec } = view;
  const written = alignWritten(section, table, spec);
  // The touched keys hold every change only relative to what this persister listed and stored last
  // cycle (TASK_STALLED's marks also need that cycle's `now`: see putAdvancedMark).
  const fromSeen = made.baseId !== 0 && made.baseId === section.seenId && made.baseNow === section.seenNow && made.now === now;
  if (fromSeen && section.swept && !made.dropped) {
    const { before, touched, repeated } = made;
    const routine = section.form.routine?.(before, table);
    for (let i = 0; i < touched.length; i++) {
      const key = touched[i]!;
      // A key put twice is read by key (section-changes.ts).
      const a = repeated ? findMarkSlot(table, key) : made.afterSlots[i]!;
      const b = repeated ? findMarkSlot(before, key) : made.beforeSlots[i]!;
      listSlotChange(section, written, key, before, b, table, a, spec, routine, changes, kind, now);
    }
    section.seenSize = made.size;
    return;
  }
  const before = readMarkTable(section.seen, spec);
  const routine = section.form.routine?.(before, table);
  const sameIndex = before.index === table.index;
  let kept = 0;
  let size = 0;
  for (let a = 0; a < table.present.length; a++) {
    if (table.present[a] !== 1) continue;
    size++;
    const key = table.index.keys[a]!;
    const b = sameIndex ? a : findMarkSlot(before, key);
    if (b >= 0 && before.present[b] === 1) kept++;
    listSlotChange(section, written, key, before, b, table, a, spec, routine, changes, kind, now);
  }
  // Entries gone from the memory: their stored rows go too (none when every key seen last cycle is
  // still there, and the rows read from the store were checked once).
  if (kept !== section.seenSize || !section.swept) {
    forEachWrittenMark(written, (slot, key) => {
      if (table.present[slot] === 1) return;
      written.at[slot] = Number.NaN;
      removeStored(section, changes, kind, key);
    });
    for (const key of section.text.keys()) {
      if (table.present[findMarkSlot(table, key)] === 1) continue;
      section.text.delete(key);
      removeStored(section, changes, kind, key);
    }
    section.swept = true;
  }
  section.seenSize = size;
}

/**
 * The record of what was written, aligned with the table's key index (written-marks.ts). Rows of keys the index no
 * longer has (not in the section) are kept by their JSON and deleted by this cycle's sweep.
 */
function alignWritten<T>(section: Section<T>, table: MarkTable, spec: MarkColumnsSpec<T>): WrittenMarks {
  const old = section.written;
  if (old === null) return (section.written = createWrittenMarks(table.index, table, spec as MarkColumnsSpec<never>));
  section.written = alignWrittenMarks(old, table.index, (key, slot, at) => {
    section.text.set(key, { json: section.form.toJson(readWrittenMark<T>(old, slot)), at });
    section.swept = false;
  });
  return section.written;
}

/**
 * One entry of a columnar section (slot `a` of `after`; `b` of `before`, the last cycle's, or −1) against what was
 * written: skipped while a routine change of one written less than advanceWriteMs ago (it is still compared with
 * the last cycle's entry next cycle, so the advance is written once the minute is up), deleted when not stored,
 * written when its numbers differ from those written (or its JSON from the stored row read from the store).
 */
function listSlotChange<T>(
  section: Section<T>,
  written: WrittenMarks,
  key: string,
  before: MarkTable,
  b: number,
  after: MarkTable,
  a: number,
  spec: MarkColumnsSpec<T>,
  routine: ((b: number, a: number) => boolean) | undefined,
  changes: MemoryEntryChange[],
  kind: string,
  now: number,
): void {
  let at = written.at[a]!;
  const text = Number.isNaN(at) ? section.text.get(key) : undefined;
  if (text !== undefined) at = text.at;
  const stored = !Number.isNaN(at);
  // Checked before anything else: on a busy flow every committed mark advances every cycle.
  if (stored && routine !== undefined && b >= 0 && before.present[b] === 1 && now - at < advanceWriteMs && routine(b, a)) return;
  if (section.form.isStoredAt?.(after, a, now) === false) {
    if (!stored) return;
    written.at[a] = Number.NaN;
    section.text.delete(key);
    removeStored(section, changes, kind, key);
    return;
  }
  if (text === undefined && stored && isWrittenSame(written, after, a, section.form.width)) return;
  // A packed section's entry is made only to compare with a row read from the store.
  const json = section.packed === null || text !== undefined ? section.form.toJson(readMark(after, a, spec)!) : "";
  if (text !== undefined) {
    section.text.delete(key);
    if (json === text.json) {
      recordWrittenMark(written, after, a, text.at);
      return;
    }
  }
  recordWrittenMark(written, after, a, now);
  if (section.packed === null) changes.push({ key: kind + key, value: json });
  else writePackedColumns(section, changes, kind, key, after, a);
}

/**
 * A section that is a plain record (read from the store or merged across shards and not yet judged, a copy, a
 * test's): walked key by key, each entry that is not the object it was last cycle compared with its stored JSON.
 */
function listRecordChanges<T extends object>(section: Section<T>, entries: Readonly<Record<string, T>>, changes: MemoryEntryChange[], kind: string, now: number): void {
  moveWrittenToText(section);
  const { form } = section;
  const keys = Object.keys(entries);
  const routine = form.routine === undefined || form.readTable === undefined ? undefined : readRoutineByKey(form, section.seen, entries);
  let kept = 0;
  for (const key of keys) {
    const entry = entries[key]!;
    const before = section.seen[key];
    if (before !== undefined) kept++;
    if (before !== entry) listEntryChange(section, entry, before !== undefined && routine?.(key) === true, changes, kind, key, now);
  }
  if (kept !== section.seenSize || !section.swept) {
    for (const key of section.text.keys()) {
      if (entries[key] === undefined) {
        section.text.delete(key);
        removeStored(section, changes, kind, key);
      }
    }
    section.swept = true;
  }
  section.seenSize = keys.length;
}

/** The routine test by key between two plain records (their entries with offsets exact as numbers). */
function readRoutineByKey<T>(form: StoredForm<T>, before: Readonly<Record<string, T>>, after: Readonly<Record<string, T>>): (key: string) => boolean {
  const [x, y] = [form.readTable!(before), form.readTable!(after)];
  const test = form.routine!(x, y);
  return (key) => {
    const [b, a] = [findMarkSlot(x, key), findMarkSlot(y, key)];
    return b >= 0 && a >= 0 && x.present[b] === 1 && y.present[a] === 1 && test(b, a);
  };
}

/** One entry of a plain record that is not the object it was last cycle; `routine`: it only advanced from that one. */
function listEntryChange<T>(section: Section<T>, entry: T, routine: boolean, changes: MemoryEntryChange[], kind: string, key: string, now: number): void {
  const stored = section.text.get(key);
  if (stored !== undefined && routine && now - stored.at < advanceWriteMs) return;
  const json = section.form.isStored?.(entry, now) === false ? null : section.form.toJson(entry);
  if (json === (stored?.json ?? null)) return;
  if (json === null) {
    section.text.delete(key);
    removeStored(section, changes, kind, key);
  } else {
    if (stored === undefined) {
      section.text.set(key, { json, at: now });
    } else {
      stored.json = json;
      stored.at = now;
    }
    writeStoredEntry(section, changes, kind, key, entry, json);
  }
}

/** Deletes `key`'s stored entry: its row, or its numbers (and a JSON row it may still have) in a packed section. */
function removeStored<T>(section: Section<T>, changes: MemoryEntryChange[], kind: string, key: string): void {
  if (section.packed !== null) {
    section.packed.delete(key);
    if (!section.rows.delete(key)) return;
  }
  changes.push({ key: kind + key, value: null });
}

/** Stores the entry at `slot` of `table` in a packed section (its JSON row, if any, deleted). */
function writePackedColumns<T>(
  section: Section<T>, changes: MemoryEntryChange[], kind: string, key: string, table: MarkTable, slot: number,
): void {
  section.packed!.setFromColumns(key, table.columns, slot, table.texts);
  if (section.rows.delete(key)) changes.push({ key: kind + key, value: null });
}

/** Stores `entry` (its JSON `json`): as numbers in a packed section when they are exact, else as its JSON row. */
function writeStoredEntry<T>(
  section: Section<T>, changes: MemoryEntryChange[], kind: string, key: string, entry: T, json: string,
): void {
  const parts = section.packed === null ? null : section.form.packed!.read(entry);
  if (parts === null) {
    section.packed?.delete(key);
    section.rows.add(key);
    changes.push({ key: kind + key, value: json });
    return;
  }
  section.packed!.setNumbers(key, parts.numbers, parts.texts);
  if (section.rows.delete(key)) changes.push({ key: kind + key, value: null });
}

/** A JSON row read from the store; in a packed section, stored as numbers by the next listing (an upgrade). */
function learnRow<T>(section: Section<T>, key: string, json: string): void {
  learnEntry(section, key, json);
  if (section.packed === null) return;
  section.packed.delete(key);
  section.rows.add(key);
  section.upgrades.push(key);
}

/** The numbers and texts of a packed section's entry stored as JSON, or null (not exact, or not an entry). */
function readPackedParts<T>(packing: PackedForm<T>, json: string): PackedParts | null {
  try {
    const entry: unknown = JSON.parse(json);
    return entry !== null && typeof entry === "object" ? packing.read(entry as T) : null;
  } catch {
    return null;
  }
}

/** A packed section's rows read from the store: its entries known by their numbers, and compared by their JSON. */
function learnPacked<T>(section: Section<T>, rows: readonly [string, string][]): void {
  const packing = section.form.packed!;
  section.packed!.learn(rows, (key, numbers, texts) => {
    learnEntry(section, key, section.form.toJson(packing.make(numbers, texts)));
  });
}

/**
 * The JSON rows of a packed section read from the store (a version before wrote them), still stored as read: their
 * numbers are stored instead and the rows deleted. A row whose offsets are not exact as numbers stays.
 */
function upgradeRows<T>(section: Section<T>, changes: MemoryEntryChange[], kind: string): void {
  const packing = section.form.packed;
  if (packing === undefined || section.upgrades.length === 0) return;
  for (const key of section.upgrades) {
    const stored = section.text.get(key);
    if (stored === undefined || !section.rows.has(key)) continue;
    // Stored as numbers too (as loaded): the row goes.
    const parts = section.packed!.has(key) ? "stored" : readPackedParts(packing, stored.json);
    if (parts === null) continue;
    if (parts !== "stored") section.packed!.setNumbers(key, parts.numbers, parts.texts);
    section.rows.delete(key);
    changes.push({ key: kind + key, value: null });
  }
  section.upgrades = [];
}

/** The rows written of a columnar section, kept by their JSON from now on (a plain record is listed). */
function moveWrittenToText<T>(section: Section<T>): void {
  const written = section.written;
  if (written === null) return;
  forEachWrittenMark(written, (slot, key) => section.text.set(key, { json: section.form.toJson(readWrittenMark<T>(written, slot)), at: written.at[slot]! }));
  section.written = null;
}

/** The checkpoint watch as the persister last saw it and what the store holds of it. */
interface WatchSection {
  /** The watch whose changes were taken last cycle (another one is compared whole once). */
  seen: CheckpointWatchState | null;
  /** The entries stored as numbers. */
  packed: PackedMarks;
  /** The entries stored as a JSON row each (read from a version before, or not exact as numbers), by key. */
  rows: Map<string, string>;
}

function createWatchSection(): WatchSection {
  return { seen: null, packed: new PackedMarks(watchPacking.kind, watchPacking.width), rows: new Map() };
}

/**
 * The watch's entries that differ from what is stored: those it changed since last cycle, or every one (and the
 * stored ones it no longer holds) when it is not the watch seen last cycle. Stored as numbers (its changed chunks'
 * rows), or as a JSON row when not exact as numbers; a JSON row of an entry now stored as numbers is deleted. A
 * changed entry exact as numbers is read from the watch's columns (WatchSlots): ~24,000 a cycle at 100,000
 * partitions, no entry object or checkpoint text made and parsed back per change.
 */
function listWatchChanges(section: WatchSection, watch: CheckpointWatchState, changes: MemoryEntryChange[]): void {
  const { packed, rows } = section;
  const numbers = new Float64Array(watchPacking.width);
  const list = (key: string, entry: CheckpointWatch[string] | null, flow?: string) => {
    const exact = entry === null ? null : readWatchNumbers(entry);
    if (exact !== null) return storeWatchNumbers(section, changes, key, exact, flow);
    packed.delete(key, flow);
    const json = entry === null ? null : encodeWatchEntry(entry);
    if ((rows.get(key) ?? null) === json) return;
    if (json === null) rows.delete(key);
    else rows.set(key, json);
    changes.push({ key: prefix.watch + key, value: json });
  };
  if (section.seen === watch) {
    watch.takeChanges((key, slots, slot) => {
      const identity = slot < 0 ? undefined : slots.identity[slot];
      // Offsets beyond 2^53, or a stored text that names none: the entry's JSON row.
      if (identity !== Identity.NUMBERS && identity !== Identity.NONE) return list(key, slot < 0 ? null : slots.entry(slot), slots.flow);
      numbers[0] = slots.dueSince[slot]!;
      numbers[1] = identity === Identity.NONE ? Number.NaN : slots.upstream[slot]!;
      numbers[2] = identity === Identity.NONE ? Number.NaN : slots.downstream[slot]!;
      storeWatchNumbers(section, changes, key, numbers, slots.flow);
    });
  } else {
    // Comparing the whole watch covers the changes it recorded: they are forgotten.
    watch.takeChanges(() => {});
    const keys = new Set<string>();
    for (const [key, entry] of watch.entries()) {
      keys.add(key);
      list(key, entry);
    }
    for (const key of [...rows.keys(), ...packed.listKeys()]) if (!keys.has(key)) list(key, null);
    section.seen = watch;
  }
  packed.flush(changes);
}

/** Stores a watch entry's numbers (of `flow`, when known), its JSON row (if any) deleted. */
function storeWatchNumbers(
  section: WatchSection, changes: MemoryEntryChange[], key: string, numbers: ArrayLike<number>, flow?: string,
): void {
  section.packed.update(key, numbers, flow);
  if (section.rows.delete(key)) changes.push({ key: prefix.watch + key, value: null });
}

/** The checkpoint watch as numbers: `[dueSince, upstream, downstream]`, the offsets NaN without a checkpoint. */
const watchPacking = { kind: "watches", width: 3 } as const;

/** A watch entry's numbers, or null when its checkpoint is not two offsets exact as numbers. */
function readWatchNumbers(entry: CheckpointWatch[string]): number[] | null {
  if (entry.checkpoint === null) return [entry.dueSince, Number.NaN, Number.NaN];
  const colon = entry.checkpoint.indexOf(":");
  const upstream = readExactOffset(entry.checkpoint.slice(0, colon));
  const downstream = readExactOffset(entry.checkpoint.slice(colon + 1));
  return colon < 0 || upstream === null || downstream === null ? null : [entry.dueSince, upstream, downstream];
}

/** A watch entry from its stored numbers (as WatchSlots makes one), or null when they are not one. */
function decodeWatchNumbers([dueSince, upstream, downstream]: readonly number[]): CheckpointWatch[string] | null {
  if (!Number.isSafeInteger(dueSince) || dueSince! < 0) return null;
  if (Number.isNaN(upstream) && Number.isNaN(downstream)) return { checkpoint: null, dueSince: dueSince! };
  if (!Number.isSafeInteger(upstream) || !Number.isSafeInteger(downstream)) return null;
  return { checkpoint: `${upstream}:${downstream}`, dueSince: dueSince! };
}

/** A watch entry as stored: `[checkpoint, dueSince]`, JSON.stringify's text (written out: ~24,000 a cycle at 100k). */
function encodeWatchEntry(entry: CheckpointWatch[string]): string {
  return `[${entry.checkpoint === null ? "null" : JSON.stringify(entry.checkpoint)},${entry.dueSince}]`;
}

/** A stored watch entry, or null when it is not one. */
function decodeWatchEntry(value: unknown): CheckpointWatch[string] | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [checkpoint, dueSince] = value as unknown[];
  if (checkpoint !== null && typeof checkpoint !== "string") return null;
  if (typeof dueSince !== "number" || !Number.isInteger(dueSince) || dueSince < 0) return null;
  return { checkpoint, dueSince };
}
