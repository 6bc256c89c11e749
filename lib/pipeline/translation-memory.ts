import { z } from "zod";
import { type ShardAssignment, shardValueKey } from "@/lib/collector/shards";
import { findingSchema } from "@/lib/detect/memory";
import { type Finding, FindingType } from "@/lib/detect/types";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { type CheckpointWatch, restateStaleCheckpoint } from "@/lib/detect/translation-detectors";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";

const log = getLogger("translation");

/**
 * Store key of the checkpoint watch (the alert service keeps its detector memory under its own); with scaleOut each
 * shard's flows' entries are under `checkpoint-watch@<shard>`.
 */
const checkpointWatchKey = "checkpoint-watch";

const watchEntrySchema = z.object({ checkpoint: z.string().nullable(), dueSince: z.number().int().nonnegative() });
const watchSchema = z.record(z.string(), watchEntrySchema);
/** Found in both forms: the findings carried and the writing cycle's own. */
const storedFindingsShape = {
  // Values written before the findings were kept have none: their first cycle carries nothing, as it did then.
  // Findings carried from an earlier cycle, as they were.
  findings: z.array(findingSchema).default([]),
  // The writing cycle's own findings, time-free (encodeCurrent); values written before they were kept apart have none.
  current: z.array(findingSchema.extend({ observedAt: z.number().nullable() })).default([]),
};

/** Version 1: the whole watch in the one value (still what a shard's value holds, and what older versions wrote). */
const storedWatchSchema = z.object({ version: z.literal(1), watch: watchSchema, ...storedFindingsShape });

/**
 * Version 2 (no scaleOut): the watch as a base value written now and then, and the changes of each cycle since as
 * segments (writeWatchSegment); this head names them and holds the findings.
 */
const storedHeadSchema = z.object({
  version: z.literal(2),
  generation: z.number().int().nonnegative(),
  segments: z.number().int().nonnegative(),
  ...storedFindingsShape,
});
const segmentSchema = z.record(z.string(), watchEntrySchema.nullable());

/** The translation rule's memory: the checkpoint watch, and last cycle's findings (carried while unjudged). */
export interface TranslationMemory {
  watch: CheckpointWatchState;
  findings: readonly Finding[];
}

/**
 * Where the translation rule's memory (lib/detect/translation-rule.ts) is kept between cycles and restarts, so a
 * restart of Gapwatch neither resolves a CHECKPOINT_STALE alert nor starts its clock again, and a first cycle that
 * cannot judge a group carries its findings as the cycle before the restart left them (that cycle's own
 * CHECKPOINT_STALE read at the first cycle's time: owed since it began; encodeCurrent). With `scope` (scaleOut) both
 * are kept per shard (createShardedWatch): a shard's new owner continues the previous owner's clocks and findings.
 */
export function createTranslationMemoryStore(store: Pick<Store, "getValue" | "setValue">, scope: ShardAssignment | null = null): StoredWatch {
  return scope === null ? createSingleWatch(store) : createShardedWatch(store, scope);
}

/**
 * Where the watch and findings are kept between cycles: `follow` gives what to judge with at `now` (`memory`: what
 * the last cycle left in memory, null before the first), `save` writes what changed (`now`: the cycle's time).
 */
export interface StoredWatch {
  follow(memory: TranslationMemory | null, now: number): Promise<TranslationMemory>;
  save(judged: TranslationMemory, now: number): Promise<void>;
}

/** Segments written before the base is written again, at most (what a restart reads besides the head and base). */
const maxSegments = 32;

/**
 * One value set for every flow (no scaleOut), version 2: read by the first cycle; each cycle writes the watch entries
 * it changed as one segment, and the head when it changed. At 100,000 partitions the watch is 8–10 MB of JSON, of
 * which a cycle changes a twelfth (the checkpoints MM2 emitted); it is written whole again (a new base) once the
 * segments since the last base hold as much as it, or number 32. A base is written under the other generation's
 * name and the head written last, so a crash between two writes leaves the head naming values that are all there.
 * The cycle's findings are stored time-free (encodeCurrent), so a firing CHECKPOINT_STALE whose owedForMs grows every
 * cycle writes nothing until its watch entry or findings change.
 */
function createSingleWatch(store: Pick<Store, "getValue" | "setValue">): StoredWatch {
  // The head the store holds as far as this source knows (as read by the first cycle, then as written).
  let head: string | null = null;
  let at: StoredPosition = { generation: 0, segments: 0, segmentChars: 0, baseChars: null };
  return {
    async follow(judged, now) {
      if (judged !== null) return judged;
      const read = await readSingleWatch(store, now);
      head = read.head;
      at = read.at;
      return read.judged;
    },
    async save(judged, now) {
      const changes = judged.watch.takeChanges();
      try {
        if (changes.size > 0 || at.baseChars === null) at = await writeWatchChanges(store, judged.watch, changes, at);
        const value = encodeHead(judged, at, now);
        if (value === head) return;
        await store.setValue(checkpointWatchKey, value);
        head = value;
      } catch (err) {
        // What was written is unknown: the next cycle writes the whole watch again (a new base), and its head.
        at = { ...at, baseChars: null };
        head = null;
        throw err;
      }
    },
  };
}

/** Where a version 2 value stands: its generation and segments; baseChars null when the next write is a base. */
interface StoredPosition {
  generation: number;
  segments: number;
  segmentChars: number;
  baseChars: number | null;
}

const baseKey = (generation: number) => `${checkpointWatchKey}~${generation % 2}`;
const segmentKey = (generation: number, segment: number) => `${baseKey(generation)}.${segment}`;

/** Writes `changes` as the next segment, or the whole watch as the next generation's base when that is due. */
async function writeWatchChanges(
  store: Pick<Store, "setValue">,
  watch: CheckpointWatchState,
  changes: ReadonlyMap<string, CheckpointWatch[string] | null>,
  at: StoredPosition,
): Promise<StoredPosition> {
  if (at.baseChars !== null && at.segments < maxSegments) {
    const segment = encodeWatch(changes);
    if (at.segmentChars + segment.length <= at.baseChars) {
      await store.setValue(segmentKey(at.generation, at.segments + 1), segment);
      return { ...at, segments: at.segments + 1, segmentChars: at.segmentChars + segment.length };
    }
  }
  const generation = at.generation + 1;
  const base = encodeWatch(watch.entries());
  await store.setValue(baseKey(generation), base);
  return { generation, segments: 0, segmentChars: 0, baseChars: base.length };
}

/** Watch entries (null: gone) as one JSON object (one stringify of a record: a fifth of the time of one per entry). */
function encodeWatch(entries: Iterable<[string, CheckpointWatch[string] | null]>): string {
  const record: Record<string, CheckpointWatch[string] | null> = {};
  for (const [key, entry] of entries) record[key] = entry;
  return JSON.stringify(record);
}

/** The version 2 head at the cycle `now`: what it names, the carried findings, this cycle's time-free. */
function encodeHead(judged: TranslationMemory, at: StoredPosition, now: number): string {
  const { carried, current } = splitFindings(judged.findings, now);
  return JSON.stringify({ version: 2, generation: at.generation, segments: at.segments, findings: carried, current });
}

/**
 * The single value as read by the cycle `now`, in either version (version 1: the whole watch in it), with where it
 * stands; a missing one is empty, an unreadable one (or one naming a base or segment that is not there) is logged
 * and started afresh.
 */
async function readSingleWatch(
  store: Pick<Store, "getValue">,
  now: number,
): Promise<{ judged: TranslationMemory; head: string | null; at: StoredPosition }> {
  const head = await store.getValue(checkpointWatchKey);
  const afresh = { judged: emptyTranslationMemory(), head, at: { generation: 0, segments: 0, segmentChars: 0, baseChars: null } };
  const parsed = parseJson(head);
  if (parsed === undefined || (parsed as { version?: unknown } | null)?.version !== 2) {
    const { watch, findings } = parseStored(head, now);
    return { ...afresh, judged: { watch: new CheckpointWatchState(watch), findings } };
  }
  const stored = storedHeadSchema.safeParse(parsed);
  if (!stored.success) return warnAfresh(afresh, stored.error.message);
  const { generation, segments, findings, current } = stored.data;
  const base = await store.getValue(baseKey(generation));
  const watch = watchSchema.safeParse(parseJson(base));
  if (!watch.success) return warnAfresh(afresh, `base ${baseKey(generation)}: ${watch.error.message}`);
  let segmentChars = 0;
  for (let i = 1; i <= segments; i++) {
    const raw = await store.getValue(segmentKey(generation, i));
    const segment = segmentSchema.safeParse(parseJson(raw));
    if (!segment.success) return warnAfresh(afresh, `segment ${segmentKey(generation, i)}: ${segment.error.message}`);
    applySegment(watch.data, segment.data);
    segmentChars += raw!.length;
  }
  const judged = { watch: new CheckpointWatchState(watch.data), findings: restoreFindings(findings, current, now) };
  return { judged, head, at: { generation, segments, segmentChars, baseChars: base!.length } };
}

function applySegment(watch: CheckpointWatch, segment: Record<string, CheckpointWatch[string] | null>): void {
  for (const key in segment) {
    const entry = segment[key]!;
    if (entry === null) delete watch[key];
    else watch[key] = entry;
  }
}

function warnAfresh<T>(afresh: T, why: string): T {
  log.warn({ err: why }, "stored checkpoint watch unreadable; starting afresh");
  return afresh;
}

/** The JSON value of `raw` (null for a missing value), undefined when it is not JSON. */
function parseJson(raw: string | null): unknown {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

const emptyTranslationMemory = (): TranslationMemory => ({ watch: new CheckpointWatchState(), findings: [] });

/**
 * One value per shard (scaleOut, version 1), holding the shard's flows' watch entries and findings: when the held
 * shards change, the lost shards' parts are dropped and the gained shards' read (a shard never stored takes its
 * flows' parts from the single value of the version before, once); the kept shards' parts stay as they are in
 * memory. Each cycle writes each held shard's part, when changed.
 */
function createShardedWatch(store: Pick<Store, "getValue" | "setValue">, scope: ShardAssignment): StoredWatch {
  let loaded: readonly number[] = [];
  // What each held shard's value holds in the store as far as this source knows (absent: none or unknown).
  const written = new Map<number, string>();
  // The shard of each flow, hashed once (a watch holds an entry per group partition: 200,000 at 100,000 partitions).
  const flowShards = new Map<string, number>();
  const shardOfFlow = (flow: string) => {
    let shard = flowShards.get(flow);
    if (shard === undefined) flowShards.set(flow, (shard = scope.shardOfOwner(flow)));
    return shard;
  };
  /** The watch entries and findings of each of `shards` (every one present, empty when it has none). */
  const split = (judged: TranslationMemory, shards: readonly number[]) => {
    const parts = new Map(shards.map((s): [number, StoredPart] => [s, { watch: {}, findings: [] }]));
    for (const [key, entry] of judged.watch.entries()) {
      const part = parts.get(shardOfFlow(key.slice(0, key.indexOf("|"))));
      if (part !== undefined) part.watch[key] = entry;
    }
    // Every translation finding names its flow.
    for (const f of judged.findings) if (f.flow !== undefined) parts.get(shardOfFlow(f.flow))?.findings.push(f);
    return parts;
  };
  return {
    async follow(judged, now) {
      const held = scope.held();
      const gained = held.filter((s) => !loaded.includes(s));
      if (judged !== null && gained.length === 0 && held.length === loaded.length) return judged;
      const raw = await Promise.all(gained.map((s) => store.getValue(shardValueKey(checkpointWatchKey, s))));
      const legacy = raw.includes(null) ? split((await readSingleWatch(store, now)).judged, gained) : null;
      const next: StoredPart = { watch: {}, findings: [] };
      const add = (part: StoredPart | undefined) => {
        Object.assign(next.watch, part?.watch);
        next.findings.push(...(part?.findings ?? []));
      };
      const kept = held.filter((s) => loaded.includes(s));
      for (const part of split(judged ?? emptyTranslationMemory(), kept).values()) add(part);
      for (const s of loaded) if (!held.includes(s)) written.delete(s);
      gained.forEach((shard, i) => {
        const value = raw[i] ?? null;
        if (value === null) written.delete(shard);
        else written.set(shard, value);
        add(value === null ? legacy?.get(shard) : parseStored(value, now));
      });
      loaded = held;
      return { watch: new CheckpointWatchState(next.watch), findings: next.findings };
    },
    async save(judged, now) {
      // Each shard's part is written whole: the changes are not needed.
      judged.watch.takeChanges();
      for (const [shard, part] of split(judged, scope.held())) {
        const value = encodeStored(part, now);
        if (written.get(shard) === value) continue;
        await store.setValue(shardValueKey(checkpointWatchKey, shard), value);
        written.set(shard, value);
      }
    },
  };
}

/**
 * A version 1 value at the cycle `now`: the watch, the findings carried from earlier cycles as they are, and this
 * cycle's findings time-free (encodeCurrent). JSON-safe: offsets in the evidence are decimal strings.
 */
function encodeStored(part: StoredPart, now: number): string {
  const { carried, current } = splitFindings(part.findings, now);
  return JSON.stringify({ version: 1, watch: part.watch, findings: carried, current });
}

/** The findings carried from earlier cycles as they are, and the cycle `now`'s own time-free (encodeCurrent). */
function splitFindings(findings: readonly Finding[], now: number) {
  return { carried: findings.filter((f) => f.observedAt !== now), current: findings.filter((f) => f.observedAt === now).map(encodeCurrent) };
}

/**
 * A finding of the writing cycle without what moves with the clock alone, so an unchanged one stores the same JSON
 * cycle after cycle: CHECKPOINT_STALE restated at its debt's start (owedForMs 0, its checkpoint's age then), any
 * other without its observedAt. restoreCurrent gives it back as read at a later cycle.
 */
function encodeCurrent(f: Finding): Omit<Finding, "observedAt"> & { observedAt: number | null } {
  if (f.type === FindingType.CHECKPOINT_STALE) return restateStaleCheckpoint(f, f.observedAt - Number(f.evidence.owedForMs));
  return { ...f, observedAt: null };
}

/** A stored finding of the cycle that wrote the value, as the cycle `now` reads it (encodeCurrent). */
function restoreCurrent(f: Omit<Finding, "observedAt"> & { observedAt: number | null }, now: number): Finding {
  return f.observedAt === null ? { ...f, observedAt: now } : restateStaleCheckpoint({ ...f, observedAt: f.observedAt }, now);
}

/** The stored findings as the cycle `now` reads them: the writing cycle's restated at `now`, then those it carried. */
function restoreFindings(findings: Finding[], current: (Omit<Finding, "observedAt"> & { observedAt: number | null })[], now: number): Finding[] {
  return [...current.map((f) => restoreCurrent(f, now)), ...findings];
}

/** A watch and findings as stored in a version 1 value. */
interface StoredPart {
  watch: CheckpointWatch;
  findings: Finding[];
}

/**
 * A version 1 value as read by the cycle `now` (the writing cycle's findings restated at `now`: a CHECKPOINT_STALE
 * owed until the restart reads as owed since its start); a missing one is empty, an unreadable one is logged and
 * started afresh.
 */
function parseStored(raw: string | null, now: number): StoredPart {
  if (raw === null) return { watch: {}, findings: [] };
  try {
    const parsed = storedWatchSchema.safeParse(JSON.parse(raw));
    if (parsed.success) {
      const { watch, findings, current } = parsed.data;
      return { watch, findings: restoreFindings(findings, current, now) };
    }
    log.warn({ err: parsed.error.message }, "stored checkpoint watch unreadable; starting afresh");
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored checkpoint watch is not JSON; starting afresh");
  }
  return { watch: {}, findings: [] };
}
