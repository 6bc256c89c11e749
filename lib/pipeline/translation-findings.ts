import { z } from "zod";
import { type ShardAssignment, shardValueKey } from "@/lib/collector/shards";
import type { Finding } from "@/lib/detect/types";
import type { Thresholds } from "@/lib/config/thresholds";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { type CheckpointWatch, detectStaleCheckpoints, detectTranslationErrors, type FlowTranslation } from "@/lib/translation";

const log = getLogger("translation");

/**
 * Store key of the checkpoint watch (the alert service keeps its detector memory under its own); with scaleOut each
 * shard's flows' entries are under `checkpoint-watch@<shard>`.
 */
const checkpointWatchKey = "checkpoint-watch";

const storedWatchSchema = z.object({
  version: z.literal(1),
  watch: z.record(z.string(), z.object({ checkpoint: z.string().nullable(), dueSince: z.number().int().nonnegative() })),
});

/**
 * TRANSLATION_ERROR and CHECKPOINT_STALE findings for the alerting pipeline, from the latest
 * cycle's translations. The checkpoint watch (which checkpoints MM2 owes since when) is kept in the
 * store between cycles and restarts, so a restart of Gapwatch neither resolves a CHECKPOINT_STALE
 * alert nor starts its clock again. With `scope` (scaleOut) the watch is kept per shard (createShardedWatch): a
 * shard's new owner continues the previous owner's clocks.
 */
export function createTranslationFindingSource(
  store: Pick<Store, "getValue" | "setValue">,
  scope: ShardAssignment | null = null,
): (translations: ReadonlyMap<string, FlowTranslation>, now: number, thresholds: Thresholds) => Promise<Finding[]> {
  const stored = scope === null ? createSingleWatch(store) : createShardedWatch(store, scope);
  // Read from the store by the first cycle (a failed read fails that cycle and is tried again by the next).
  let watch: CheckpointWatch | null = null;
  let last: Finding[] = [];
  return async (translations, now, thresholds) => {
    watch = await stored.follow(watch);
    const limits = { replayRecords: thresholds.translationReplayRecords, checkpointStaleMs: thresholds.checkpointStaleMs };
    const findings: Finding[] = [];
    for (const ft of translations.values()) {
      const produced = detectTranslationErrors(ft, now, limits);
      const stale = detectStaleCheckpoints(ft, watch, now, limits);
      watch = stale.watch;
      produced.push(...stale.findings);
      findings.push(...produced, ...carryUnjudgedFindings(ft, last, produced));
    }
    // The watch stays in memory: a failed write is logged and the next cycle writes it again (a store error never hides alerts).
    await stored.save(watch).catch((err: unknown) =>
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the checkpoint watch to the store failed"),
    );
    last = findings;
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

/** Where the watch is kept between cycles: `follow` gives the watch to judge with (null before the first cycle). */
interface StoredWatch {
  follow(watch: CheckpointWatch | null): Promise<CheckpointWatch>;
  save(watch: CheckpointWatch): Promise<void>;
}

/** One value for every flow (no scaleOut): read by the first cycle, written by each. */
function createSingleWatch(store: Pick<Store, "getValue" | "setValue">): StoredWatch {
  return {
    follow: async (watch) => watch ?? parseWatch(await store.getValue(checkpointWatchKey)),
    save: (watch) => store.setValue(checkpointWatchKey, JSON.stringify({ version: 1, watch })),
  };
}

/**
 * One value per shard (scaleOut): when the held shards change, the lost shards' entries are dropped and the gained
 * shards' read (a shard never stored takes its flows' entries from the single value of the version before, once);
 * the kept shards' entries stay as they are in memory. Each cycle writes each held shard's entries, when changed.
 */
function createShardedWatch(store: Pick<Store, "getValue" | "setValue">, scope: ShardAssignment): StoredWatch {
  let loaded: readonly number[] = [];
  // What each held shard's value holds in the store as far as this source knows (absent: none or unknown).
  const written = new Map<number, string>();
  // The shard of each flow, hashed once (a watch holds an entry per group partition: 200,000 at 100,000 partitions).
  const flowShards = new Map<string, number>();
  const shardOfEntry = (key: string) => {
    const flow = key.slice(0, key.indexOf("|"));
    let shard = flowShards.get(flow);
    if (shard === undefined) flowShards.set(flow, (shard = scope.shardOfOwner(flow)));
    return shard;
  };
  /** The watch's entries of each of `shards` (every one present, empty when it has none). */
  const splitWatch = (watch: CheckpointWatch, shards: readonly number[]) => {
    const parts = new Map<number, CheckpointWatch>(shards.map((s) => [s, {}]));
    for (const key in watch) {
      const part = parts.get(shardOfEntry(key));
      if (part !== undefined) part[key] = watch[key]!;
    }
    return parts;
  };
  return {
    async follow(watch) {
      const held = scope.held();
      const gained = held.filter((s) => !loaded.includes(s));
      if (watch !== null && gained.length === 0 && held.length === loaded.length) return watch;
      const raw = await Promise.all(gained.map((s) => store.getValue(shardValueKey(checkpointWatchKey, s))));
      const legacy = raw.includes(null) ? splitWatch(parseWatch(await store.getValue(checkpointWatchKey)), gained) : null;
      const next: CheckpointWatch = {};
      for (const part of splitWatch(watch ?? {}, held.filter((s) => loaded.includes(s))).values()) Object.assign(next, part);
      for (const s of loaded) if (!held.includes(s)) written.delete(s);
      gained.forEach((shard, i) => {
        const value = raw[i] ?? null;
        if (value === null) written.delete(shard);
        else written.set(shard, value);
        Object.assign(next, value === null ? legacy?.get(shard) : parseWatch(value));
      });
      loaded = held;
      return next;
    },
    async save(watch) {
      for (const [shard, part] of splitWatch(watch, scope.held())) {
        const value = JSON.stringify({ version: 1, watch: part });
        if (written.get(shard) === value) continue;
        await store.setValue(shardValueKey(checkpointWatchKey, shard), value);
        written.set(shard, value);
      }
    },
  };
}

/** A stored watch; a missing one is empty, an unreadable one is logged and started afresh. */
function parseWatch(raw: string | null): CheckpointWatch {
  if (raw === null) return {};
  try {
    const parsed = storedWatchSchema.safeParse(JSON.parse(raw));
    if (parsed.success) return parsed.data.watch;
    log.warn({ err: parsed.error.message }, "stored checkpoint watch unreadable; starting afresh");
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored checkpoint watch is not JSON; starting afresh");
  }
  return {};
}
