/**
 * Where every rule's memory (lib/detect/rule.ts RuleMemory) is kept between cycles and restarts, for the pipeline:
 * read before the first cycle the engine judges, written after each cycle by change, in one scheme: entries
 * (lib/detect/memory-persistence.ts), one row each, only what changed — the held events, examined offset syncs,
 * TASK_STALLED's and MM2_POSITION_MOVED's marks, every rule's level findings and the translation rule's checkpoint
 * watch. Upgrades: a store holding the whole detector memory under one key (the version before entries) is read
 * once; a store (or shard) whose entries lack `watch-entries` has its checkpoint watch and translation findings read
 * once from where the versions before kept them (translation-memory.ts), and the first write stores them as entries.
 * With `scope` (a collector sharing the work, config scaleOut) it holds only what belongs to the shards of the
 * current cycle: when they change, before the cycle is judged, it reads what the gained shards' previous owners left
 * (their held events, marks and checkpoint clocks continue), keeps the kept shards' memory as it holds it (the
 * store's copy may trail: a routine advance of a committed mark is written at most once a minute), and drops the
 * lost shards', which stays in the store for their new owner. Every entry belongs to the flow, cluster or Connect
 * cluster its key names, stored under a prefix per shard.
 */
import { ownerOfFindingKey } from "@/lib/alerts/alert-scope";
import type { ShardAssignment } from "@/lib/collector/shards";
import {
  createDetectorMemory,
  createMemoryPersister,
  type DetectorMemory,
  loadDetectorMemoryEntries,
  type MemoryEntryChange,
  type MemoryPersister,
  parseDetectorMemory,
  type RuleMemory,
} from "@/lib/detect";
import { CheckpointWatchState } from "@/lib/detect/checkpoint-watch";
import { watchEntriesKey } from "@/lib/detect/memory-persistence";
import type { CheckpointWatch } from "@/lib/detect/translation-detectors";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { readLegacyShardTranslationMemory, readLegacyTranslationMemory } from "./translation-memory";

const log = getLogger("rules");
/** Where the previous version kept the whole detector memory as one JSON value: read once (an upgrade), never written. */
const legacyMemoryKey = "detector-memory";

/** A detector memory with its checkpoint watch as stored: what one store (or shard) holds. */
interface StoredMemory {
  memory: DetectorMemory;
  watch: CheckpointWatch;
}

/** Reads every rule's memory before a cycle and writes what the cycle changed. */
export class RuleMemoryKeeper {
  private memory: RuleMemory | null = null;
  // Lists the entries that changed since the store last got them; null after a failed write or a change of the held
  // shards (the next cycle compares with what the store holds).
  private persister: MemoryPersister | null = null;
  // The shards the held memory was read for (scope only).
  private loadedShards: readonly number[] = [];
  // The `watch-entries` keys to write with the next entries (the watch was read from the versions before), by shard
  // (-1: no scope).
  private readonly unmarked = new Set<number>();

  constructor(
    private readonly store: Store,
    private readonly scope: ShardAssignment | null = null,
  ) {}

  /**
   * Every rule's memory to judge the cycle `now` with: read from the store by the first cycle, then as the last
   * cycle left it (following the held shards). A failed read throws: the cycle fails and the next reads again.
   */
  async load(now: number): Promise<RuleMemory> {
    if (this.memory === null) await this.restore(now);
    else if (this.scope !== null && !sameShards(this.scope.held(), this.loadedShards)) await this.followShards(this.scope, now);
    return { ...this.memory!, lastFindings: [...this.memory!.lastFindings] };
  }

  /**
   * Keeps the memory the engine returned for the cycle `now` and writes what changed. A failed write is logged, never
   * thrown (a store error never hides alerts): the next cycle writes what differs from what the store holds.
   */
  async save(memory: RuleMemory, now: number): Promise<void> {
    const { version, events, syncMarkers, positions, committed, lastFindings, checkpointWatch } = memory;
    this.memory = { version, events, syncMarkers, positions, committed, lastFindings, checkpointWatch };
    try {
      let changes: MemoryEntryChange[];
      if (this.scope === null) {
        this.persister ??= createMemoryPersister(await this.store.loadDetectorMemoryEntries());
        changes = this.persister.listChanges(this.memory, now);
      } else {
        this.persister ??= (await loadShardMemory(this.store, this.loadedShards, now)).persister;
        changes = scopeMemoryChanges(this.persister.listChanges(this.memory, now), this.scope);
      }
      // Written with the watch's entries (the first write after the upgrade lists them all: a watch it has not seen).
      for (const shard of this.unmarked) changes.push({ key: (shard < 0 ? "" : shardPrefix(shard)) + watchEntriesKey, value: "1" });
      await this.store.saveDetectorMemoryEntries(changes);
      this.unmarked.clear();
    } catch (err) {
      this.persister = null;
      const why = err instanceof Error ? err.message : String(err);
      log.error({ err: why }, "writing the rule memory to the store failed");
    }
  }

  /** The stored memory as the cycle `now` reads it, and a persister that knows what the store holds. */
  private async restore(now: number): Promise<void> {
    const shards = this.scope?.held() ?? null;
    if (this.scope !== null && shards !== null) {
      const loaded = await this.readShards(this.scope, shards, now);
      [this.memory, this.persister, this.loadedShards] = [toRuleMemory(loaded.stored), loaded.persister, shards];
      return;
    }
    const entries = await this.store.loadDetectorMemoryEntries();
    let stored: StoredMemory;
    let watchStored = false;
    if (entries.length > 0) {
      const loaded = loadDetectorMemoryEntries(entries, now);
      if (loaded.error) log.warn({ err: loaded.error }, "stored rule memory unreadable; starting afresh");
      // An unreadable store starts afresh whole: what the versions before kept is older still.
      watchStored = loaded.watchStored || loaded.error !== null;
      [stored, this.persister] = [{ memory: loaded.memory, watch: loaded.watch }, createMemoryPersister(entries)];
    } else {
      // A store without entries may be one the previous version wrote (the whole memory under one key): that is
      // read, and the first cycle writes it all as entries.
      [stored, this.persister] = [{ memory: await loadLegacyMemory(this.store), watch: {} }, createMemoryPersister()];
    }
    if (!watchStored) {
      const legacy = await readLegacyTranslationMemory(this.store, now);
      stored = { memory: { ...stored.memory, lastFindings: [...stored.memory.lastFindings, ...legacy.findings] }, watch: legacy.watch };
      this.unmarked.add(-1);
    }
    this.memory = toRuleMemory(stored);
  }

  /** Follows the held shards (module comment); a failed read throws before anything changed. */
  private async followShards(assignment: ShardAssignment, now: number): Promise<void> {
    const held = assignment.held();
    const gained = held.filter((s) => !this.loadedShards.includes(s));
    const isKept = (owner: string) => {
      const shard = assignment.shardOfOwner(owner);
      return held.includes(shard) && this.loadedShards.includes(shard);
    };
    const gainedMemory = await this.readShards(assignment, gained, now);
    for (const shard of this.unmarked) if (!held.includes(shard)) this.unmarked.delete(shard);
    // The persister still knows the kept shards' stored entries and learns the gained shards': this cycle's write
    // deletes those the cycle dropped (and rewrites the gained shards' that differ).
    this.persister?.learn(gainedMemory.entries);
    const memory = this.memory!;
    const keptWatch: CheckpointWatch = {};
    for (const [key, entry] of memory.checkpointWatch.entries()) if (isKept(key.slice(0, key.indexOf("|")))) keptWatch[key] = entry;
    const kept = { memory: selectDetectorMemory(memory, isKept), watch: keptWatch };
    this.memory = toRuleMemory(mergeStoredMemories([kept, gainedMemory.stored]));
    this.loadedShards = held;
  }

  /**
   * `shards`' memory as the cycle `now` reads it, each shard's from its entries, or (its entries lacking
   * `watch-entries`) its watch and translation findings from the versions before; the entries read, and a persister
   * knowing them.
   */
  private async readShards(
    assignment: ShardAssignment,
    shards: readonly number[],
    now: number,
  ): Promise<{ stored: StoredMemory; entries: [string, string][]; persister: MemoryPersister }> {
    const loaded = await loadShardMemory(this.store, shards, now);
    for (const err of loaded.errors) log.warn({ err }, "a shard's stored rule memory is unreadable; it starts afresh");
    if (loaded.legacyShards.length === 0) return loaded;
    const legacy = await readLegacyShardTranslationMemory(this.store, loaded.legacyShards, (flow) => assignment.shardOfOwner(flow), now);
    for (const shard of loaded.legacyShards) this.unmarked.add(shard);
    const parts = [...legacy.values()].map((part) => ({ memory: { ...createDetectorMemory(), lastFindings: part.findings }, watch: part.watch }));
    return { ...loaded, stored: mergeStoredMemories([loaded.stored, ...parts]) };
  }
}

/** A stored memory as the engine judges with it (the watch updated in place from then on). */
function toRuleMemory({ memory, watch }: StoredMemory): RuleMemory {
  return { ...memory, checkpointWatch: new CheckpointWatchState(watch) };
}

function sameShards(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

async function loadLegacyMemory(store: Store): Promise<DetectorMemory> {
  const raw = await store.getValue(legacyMemoryKey);
  if (raw === null) return createDetectorMemory();
  try {
    const parsed = parseDetectorMemory(JSON.parse(raw));
    if (parsed.error) log.warn({ err: parsed.error }, "stored detector memory unreadable; starting afresh");
    return parsed.memory;
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, "stored detector memory is not JSON; starting afresh");
    return createDetectorMemory();
  }
}

/**
 * The owner of a memory entry (lib/detect/memory-persistence.ts): `event|` and `finding|` hold a finding key, `sync|`,
 * `stall|` and `committed|` a flow partition key (`<flow>|<topic>|<partition>`), `watch|` a flow group partition key
 * (`<flow>|<group>|<topic>|<partition>`), the chunk rows of numbers (`syncs|`, `watches|`, `committed-marks|`, their
 * `-keys|` and `-texts|`) a flow (`<flow>|<chunk>`); `cycle-at` and `watch-entries` (no kind) belong to every shard,
 * null.
 */
export function ownerOfMemoryEntry(key: string): string | null {
  const bar = key.indexOf("|");
  if (bar < 0) return null;
  const kind = key.slice(0, bar);
  const rest = key.slice(bar + 1);
  return kind === "event" || kind === "finding" ? ownerOfFindingKey(rest) : rest.split("|", 1)[0]!;
}

/** Where a shard's detector memory entries are stored: `@<shard>|<entry key>`. */
function shardPrefix(shard: number): string {
  return `@${shard}|`;
}

/**
 * The held shards' memory as the cycle `readAt` reads it, each shard read under its prefix and restored with its own
 * `cycle-at` (the previous owner's last cycle), merged; the shards whose entries lack `watch-entries` (their watch
 * is where the versions before kept it); and a persister that knows what the store holds for them.
 */
export async function loadShardMemory(
  store: Pick<Store, "loadDetectorMemoryEntries">,
  shards: readonly number[],
  readAt?: number,
): Promise<{ stored: StoredMemory; legacyShards: number[]; entries: [string, string][]; persister: MemoryPersister; errors: string[] }> {
  const perShard = await Promise.all(shards.map(async (s) => (await store.loadDetectorMemoryEntries(shardPrefix(s))).map(([key, value]): [string, string] => [key.slice(shardPrefix(s).length), value])));
  const loaded = perShard.map((entries) => loadDetectorMemoryEntries(entries, readAt));
  // cycle-at is written anew by the first cycle; the persister compares everything else with what is stored.
  const entries = perShard.flat().filter(([key]) => ownerOfMemoryEntry(key) !== null);
  return {
    stored: mergeStoredMemories(loaded.map((l) => ({ memory: l.memory, watch: l.watch }))),
    // An unreadable shard starts afresh whole (what the versions before kept is older still).
    legacyShards: shards.filter((_, i) => !loaded[i]!.watchStored && loaded[i]!.error === null),
    entries,
    persister: createMemoryPersister(entries),
    errors: loaded.flatMap((l) => (l.error === null ? [] : [l.error])),
  };
}

/** Disjoint shards' memories as one (the watches' entries together). */
function mergeStoredMemories(parts: readonly StoredMemory[]): StoredMemory {
  return { memory: mergeDetectorMemories(parts.map((p) => p.memory)), watch: Object.assign({}, ...parts.map((p) => p.watch)) as CheckpointWatch };
}

/** Disjoint shards' memories as one (events in the order first seen, level findings by key, as a load orders them). */
export function mergeDetectorMemories(parts: readonly DetectorMemory[]): DetectorMemory {
  return {
    version: 1,
    events: parts.flatMap((p) => p.events).sort((a, b) => a.firstSeen - b.firstSeen),
    syncMarkers: Object.assign({}, ...parts.map((p) => p.syncMarkers)) as DetectorMemory["syncMarkers"],
    positions: Object.assign({}, ...parts.map((p) => p.positions)) as DetectorMemory["positions"],
    committed: Object.assign({}, ...parts.map((p) => p.committed)) as DetectorMemory["committed"],
    lastFindings: parts.flatMap((p) => p.lastFindings).sort((a, b) => a.key.localeCompare(b.key)),
  };
}

/**
 * The part of a memory whose owners `keep` accepts: what a collector still holds when it loses shards (their entries
 * are in the store for the new owner). Per-partition sections are keyed by flow partition key (`<flow>|…`).
 */
export function selectDetectorMemory(memory: DetectorMemory, keep: (owner: string) => boolean): DetectorMemory {
  const section = <T>(records: Record<string, T>) => Object.fromEntries(Object.entries(records).filter(([key]) => keep(key.split("|", 1)[0]!)));
  return {
    version: 1,
    events: memory.events.filter((e) => keep(ownerOfFindingKey(e.finding.key))),
    syncMarkers: section(memory.syncMarkers),
    positions: section(memory.positions),
    committed: section(memory.committed),
    lastFindings: memory.lastFindings.filter((f) => keep(ownerOfFindingKey(f.key))),
  };
}

/**
 * A cycle's memory changes as stored rows of the held shards: each under its owner's shard prefix, `cycle-at` once
 * per held shard, and none for an owner this collector does not hold (every collector reads every cluster, but
 * only the cluster's shard owner keeps its memory).
 */
export function scopeMemoryChanges(changes: readonly MemoryEntryChange[], assignment: ShardAssignment): MemoryEntryChange[] {
  const scoped: MemoryEntryChange[] = [];
  for (const c of changes) {
    const owner = ownerOfMemoryEntry(c.key);
    if (owner === null) {
      for (const s of assignment.held()) scoped.push({ key: shardPrefix(s) + c.key, value: c.value });
    } else if (assignment.owns(owner)) {
      scoped.push({ key: shardPrefix(assignment.shardOfOwner(owner)) + c.key, value: c.value });
    }
  }
  return scoped;
}
