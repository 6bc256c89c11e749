import { z } from "zod";
import { type ShardAssignment, shardValueKey } from "@/lib/collector/shards";
import { findingSchema } from "@/lib/detect/memory";
import { type Finding, FindingType } from "@/lib/detect/types";
import type { Thresholds } from "@/lib/config/thresholds";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import {
  type CheckpointWatch, detectStaleCheckpoints, detectTranslationErrors, type FlowTranslation, restateStaleCheckpoint,
} from "@/lib/translation";

const log = getLogger("translation");

/**
 * Store key of the checkpoint watch (the alert service keeps its detector memory under its own); with scaleOut each
 * shard's flows' entries are under `checkpoint-watch@<shard>`.
 */
const checkpointWatchKey = "checkpoint-watch";

const storedWatchSchema = z.object({
  version: z.literal(1),
  watch: z.record(z.string(), z.object({ checkpoint: z.string().nullable(), dueSince: z.number().int().nonnegative() })),
  // Values written before the findings were kept have none: their first cycle carries nothing, as it did then.
  // Findings carried from an earlier cycle, as they were.
  findings: z.array(findingSchema).default([]),
  // The writing cycle's own findings, time-free (encodeCurrent); values written before they were kept apart have none.
  current: z.array(findingSchema.extend({ observedAt: z.number().nullable() })).default([]),
});

/** What a cycle judges with: the checkpoint watch, and last cycle's findings (carried while unjudged). */
interface Judged {
  watch: CheckpointWatch;
  findings: readonly Finding[];
}

/**
 * TRANSLATION_ERROR and CHECKPOINT_STALE findings for the alerting pipeline, from the latest
 * cycle's translations. The checkpoint watch (which checkpoints MM2 owes since when) and the last
 * cycle's findings are kept in the store between cycles and restarts, so a restart of Gapwatch
 * neither resolves a CHECKPOINT_STALE alert nor starts its clock again, and a first cycle that
 * cannot judge a group carries its findings as the cycle before the restart left them (that cycle's
 * own CHECKPOINT_STALE read at the first cycle's time: owed since it began; encodeCurrent). With `scope`
 * (scaleOut) both are kept per shard (createShardedWatch): a shard's new owner continues the
 * previous owner's clocks and findings.
 */
export function createTranslationFindingSource(
  store: Pick<Store, "getValue" | "setValue">,
  scope: ShardAssignment | null = null,
): (
  translations: ReadonlyMap<string, FlowTranslation>,
  now: number,
  thresholds: Thresholds,
  untranslatedFlows?: ReadonlySet<string>,
) => Promise<Finding[]> {
  const stored = scope === null ? createSingleWatch(store) : createShardedWatch(store, scope);
  // Read from the store by the first cycle (a failed read fails that cycle and is tried again by the next).
  let judged: Judged | null = null;
  // `untranslatedFlows`: flows whose translation failed this cycle; their findings stay as they were (unknown).
  return async (translations, now, thresholds, untranslatedFlows = new Set()) => {
    const last = await stored.follow(judged, now);
    let watch = last.watch;
    const limits = { replayRecords: thresholds.translationReplayRecords, checkpointStaleMs: thresholds.checkpointStaleMs };
    const findings: Finding[] = [];
    for (const ft of translations.values()) {
      const produced = detectTranslationErrors(ft, now, limits);
      const stale = detectStaleCheckpoints(ft, watch, now, limits);
      watch = stale.watch;
      produced.push(...stale.findings);
      findings.push(...produced, ...carryUnjudgedFindings(ft, last.findings, produced));
    }
    findings.push(...last.findings.filter((f) => f.flow !== undefined && untranslatedFlows.has(f.flow) && !translations.has(f.flow)));
    judged = { watch, findings };
    // Kept in memory: a failed write is logged and the next cycle writes it again (a store error never hides alerts).
    await stored.save(judged, now).catch((err: unknown) =>
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the checkpoint watch to the store failed"),
    );
    return findings;
  };
}

/**
 * Last cycle's findings of this flow that were not judged now — the offset syncs could not be read,
 * or the group's offsets are unknown — so they stay as they were instead of resolving on missing data.
 */
function carryUnjudgedFindings(ft: FlowTranslation, last: readonly Finding[], produced: readonly Finding[]): Finding[] {
  const keys = new Set(produced.map((f) => f.key));
  const unknownGroups = new Set(ft.groups.filter((g) => g.unknown !== null).map((g) => g.group));
  const unjudged = (f: Finding) => !ft.syncsLoaded || (f.group !== undefined && unknownGroups.has(f.group));
  return last.filter((f) => f.flow === ft.flow && !keys.has(f.key) && unjudged(f));
}

/**
 * Where the watch and findings are kept between cycles: `follow` gives what to judge with at `now` (`judged`: what
 * the last cycle left in memory, null before the first), `save` writes what changed (`now`: the cycle's time).
 */
interface StoredWatch {
  follow(judged: Judged | null, now: number): Promise<Judged>;
  save(judged: Judged, now: number): Promise<void>;
}

/**
 * One value for every flow (no scaleOut): read by the first cycle, written by a cycle that changed it. At 100,000
 * flows the watch is megabytes of JSON; the cycle's findings are stored time-free (encodeCurrent), so a firing
 * CHECKPOINT_STALE whose owedForMs grows every cycle writes nothing until its watch or findings change.
 */
function createSingleWatch(store: Pick<Store, "getValue" | "setValue">): StoredWatch {
  // The value the store holds as far as this source knows (as read by the first cycle, then as written).
  let written: string | null = null;
  return {
    async follow(judged, now) {
      if (judged !== null) return judged;
      written = await store.getValue(checkpointWatchKey);
      return parseStored(written, now);
    },
    async save(judged, now) {
      const value = encodeStored(judged, now);
      if (value === written) return;
      await store.setValue(checkpointWatchKey, value);
      written = value;
    },
  };
}

/**
 * One value per shard (scaleOut), holding the shard's flows' watch entries and findings: when the held shards change,
 * the lost shards' parts are dropped and the gained shards' read (a shard never stored takes its flows' parts from
 * the single value of the version before, once); the kept shards' parts stay as they are in memory. Each cycle writes
 * each held shard's part, when changed.
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
  const split = (judged: Judged, shards: readonly number[]) => {
    const parts = new Map(shards.map((s) => [s, { watch: {} as CheckpointWatch, findings: [] as Finding[] }]));
    for (const key in judged.watch) {
      const part = parts.get(shardOfFlow(key.slice(0, key.indexOf("|"))));
      if (part !== undefined) part.watch[key] = judged.watch[key]!;
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
      const legacy = raw.includes(null) ? split(parseStored(await store.getValue(checkpointWatchKey), now), gained) : null;
      const next = { watch: {} as CheckpointWatch, findings: [] as Finding[] };
      const add = (part: Judged | undefined) => {
        Object.assign(next.watch, part?.watch);
        next.findings.push(...(part?.findings ?? []));
      };
      const kept = held.filter((s) => loaded.includes(s));
      for (const part of split(judged ?? { watch: {}, findings: [] }, kept).values()) add(part);
      for (const s of loaded) if (!held.includes(s)) written.delete(s);
      gained.forEach((shard, i) => {
        const value = raw[i] ?? null;
        if (value === null) written.delete(shard);
        else written.set(shard, value);
        add(value === null ? legacy?.get(shard) : parseStored(value, now));
      });
      loaded = held;
      return next;
    },
    async save(judged, now) {
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
 * A stored value at the cycle `now`: the watch, the findings carried from earlier cycles as they are, and this
 * cycle's findings time-free (encodeCurrent). JSON-safe: offsets in the evidence are decimal strings.
 */
function encodeStored(judged: Judged, now: number): string {
  const carried = judged.findings.filter((f) => f.observedAt !== now);
  const current = judged.findings.filter((f) => f.observedAt === now).map(encodeCurrent);
  return JSON.stringify({ version: 1, watch: judged.watch, findings: carried, current });
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

/**
 * A stored value as read by the cycle `now` (the writing cycle's findings restated at `now`: a CHECKPOINT_STALE owed
 * until the restart reads as owed since its start); a missing one is empty, an unreadable one is logged and started
 * afresh.
 */
function parseStored(raw: string | null, now: number): Judged {
  if (raw === null) return { watch: {}, findings: [] };
  try {
    const parsed = storedWatchSchema.safeParse(JSON.parse(raw));
    if (parsed.success) {
      const { watch, findings, current } = parsed.data;
      return { watch, findings: [...current.map((f) => restoreCurrent(f, now)), ...findings] };
    }
    log.warn({ err: parsed.error.message }, "stored checkpoint watch unreadable; starting afresh");
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored checkpoint watch is not JSON; starting afresh");
  }
  return { watch: {}, findings: [] };
}
