/**
 * The upgrade reader of the checkpoint watch the versions before kept outside the memory entries: the translation
 * rule's watch and findings under `checkpoint-watch` (version 1: the whole watch in the one value; version 2: a head
 * naming a base `checkpoint-watch~<generation % 2>` and segments `…~<g>.<n>` of each cycle's changes since) and, with
 * scaleOut, per shard under `checkpoint-watch@<shard>` (version 1). Read once, by the first load of a store (or shard)
 * whose entries lack `watch-entries` (lib/detect/memory-persistence.ts); from then on the watch and its findings are
 * memory entries. The old values are left in the store and ignored (the Store has no way to delete a value; they hold
 * at most the watch's size twice plus its segments, and nothing reads them once `watch-entries` is written).
 */
import { z } from "zod";
import { shardValueKey } from "@/lib/collector/shards";
import { findingSchema } from "@/lib/detect/memory";
import { type CheckpointWatch, restateStaleCheckpoint } from "@/lib/detect/translation-detectors";
import type { Finding } from "@/lib/detect/types";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";

const log = getLogger("translation");

/** Where the versions before kept the watch (per shard: `checkpoint-watch@<shard>`). */
const checkpointWatchKey = "checkpoint-watch";

const watchEntrySchema = z.object({ checkpoint: z.string().nullable(), dueSince: z.number().int().nonnegative() });
const watchSchema = z.record(z.string(), watchEntrySchema);
/** A finding of the writing cycle, time-free: CHECKPOINT_STALE restated at its debt's start, any other observedAt null. */
const currentFindingSchema = findingSchema.extend({ observedAt: z.number().nullable() });
type CurrentFinding = z.infer<typeof currentFindingSchema>;
/** Found in both versions: the findings carried and the writing cycle's own (either may be absent in older values). */
const storedFindingsShape = { findings: z.array(findingSchema).default([]), current: z.array(currentFindingSchema).default([]) };
const storedWatchSchema = z.object({ version: z.literal(1), watch: watchSchema, ...storedFindingsShape });
const storedHeadSchema = z.object({
  version: z.literal(2),
  generation: z.number().int().nonnegative(),
  segments: z.number().int().nonnegative(),
  ...storedFindingsShape,
});
const segmentSchema = z.record(z.string(), watchEntrySchema.nullable());

/** The translation rule's memory as the versions before stored it. */
export interface LegacyTranslationMemory {
  watch: CheckpointWatch;
  /** As the versions before read them at the loading cycle: the writing cycle's own restated at it, then the carried. */
  findings: Finding[];
}

const empty = (): LegacyTranslationMemory => ({ watch: {}, findings: [] });

/**
 * The single value (either version) as read by the cycle `now`; none stored is empty, an unreadable one (or a head
 * naming a base or segment that is not there) is logged and empty, as the versions before started afresh.
 */
export async function readLegacyTranslationMemory(store: Pick<Store, "getValue">, now: number): Promise<LegacyTranslationMemory> {
  const head = await store.getValue(checkpointWatchKey);
  const parsed = parseJson(head);
  if (parsed === undefined || (parsed as { version?: unknown } | null)?.version !== 2) return parseVersion1(head, now);
  const stored = storedHeadSchema.safeParse(parsed);
  if (!stored.success) return warnEmpty(stored.error.message);
  const { generation, segments, findings, current } = stored.data;
  const baseKey = `${checkpointWatchKey}~${generation % 2}`;
  const watch = watchSchema.safeParse(parseJson(await store.getValue(baseKey)));
  if (!watch.success) return warnEmpty(`base ${baseKey}: ${watch.error.message}`);
  for (let i = 1; i <= segments; i++) {
    const segment = segmentSchema.safeParse(parseJson(await store.getValue(`${baseKey}.${i}`)));
    if (!segment.success) return warnEmpty(`segment ${baseKey}.${i}: ${segment.error.message}`);
    for (const [key, entry] of Object.entries(segment.data)) {
      if (entry === null) delete watch.data[key];
      else watch.data[key] = entry;
    }
  }
  return { watch: watch.data, findings: restoreFindings(findings, current, now) };
}

/**
 * Each of `shards`' part as the versions before kept it with scaleOut, read by the cycle `now`: the shard's own value,
 * or, for a shard never stored per shard, its flows' part of the single value (read once for all of them).
 */
export async function readLegacyShardTranslationMemory(
  store: Pick<Store, "getValue">,
  shards: readonly number[],
  shardOfFlow: (flow: string) => number,
  now: number,
): Promise<Map<number, LegacyTranslationMemory>> {
  const raw = await Promise.all(shards.map((s) => store.getValue(shardValueKey(checkpointWatchKey, s))));
  const single = raw.includes(null) ? await readLegacyTranslationMemory(store, now) : empty();
  const parts = new Map<number, LegacyTranslationMemory>();
  shards.forEach((shard, i) => {
    const value = raw[i] ?? null;
    parts.set(shard, value === null ? selectShardPart(single, (flow) => shardOfFlow(flow) === shard) : parseVersion1(value, now));
  });
  return parts;
}

/** The part of a watch and findings whose flows `keep` accepts (a watch key and a translation finding name their flow). */
function selectShardPart(memory: LegacyTranslationMemory, keep: (flow: string) => boolean): LegacyTranslationMemory {
  const watch: CheckpointWatch = {};
  for (const [key, entry] of Object.entries(memory.watch)) if (keep(key.slice(0, key.indexOf("|")))) watch[key] = entry;
  return { watch, findings: memory.findings.filter((f) => f.flow !== undefined && keep(f.flow)) };
}

/** A version 1 value as read by the cycle `now`; none is empty, an unreadable one is logged and empty. */
function parseVersion1(raw: string | null, now: number): LegacyTranslationMemory {
  if (raw === null) return empty();
  const json = parseJson(raw);
  if (json === undefined) return warnEmpty("not JSON");
  const parsed = storedWatchSchema.safeParse(json);
  if (!parsed.success) return warnEmpty(parsed.error.message);
  const { watch, findings, current } = parsed.data;
  return { watch, findings: restoreFindings(findings, current, now) };
}

/** The stored findings as the cycle `now` reads them: the writing cycle's restated at `now`, then those it carried. */
function restoreFindings(findings: Finding[], current: CurrentFinding[], now: number): Finding[] {
  const restored = current.map((f) => (f.observedAt === null ? { ...f, observedAt: now } : restateStaleCheckpoint({ ...f, observedAt: f.observedAt }, now)));
  return [...restored, ...findings];
}

function warnEmpty(why: string): LegacyTranslationMemory {
  log.warn({ err: why }, "stored checkpoint watch unreadable; starting afresh");
  return empty();
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
