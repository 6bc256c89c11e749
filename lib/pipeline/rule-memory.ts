/**
 * Where every rule's memory (lib/detect/rule.ts RuleMemory) is kept between cycles and restarts, for the pipeline:
 * read before the first cycle the engine judges, written after each cycle by change.
 * - The detector sections (held events, examined offset syncs, TASK_STALLED's and MM2_POSITION_MOVED's marks, level
 *   findings) as entries (lib/detect/memory-persistence.ts), one row each, only what changed; a store holding the whole
 *   memory under one key (the version before entries) is read once and written as entries.
 * - The translation rule's checkpoint watch and findings as head, base and segments (translation-memory.ts).
 * With `scope` (a collector sharing the work, config scaleOut) it holds only what belongs to the shards of the
 * current cycle: when they change, before the cycle is judged, it reads what the gained shards' previous owners left
 * (their held events and marks continue), keeps the kept shards' memory as it holds it (the store's copy may trail:
 * a routine advance of a committed mark is written at most once a minute), and drops the lost shards', which stays
 * in the store for their new owner. Every detector memory entry belongs to the flow, cluster or Connect cluster its
 * key names, stored under a prefix per shard.
 */
import { ownerOfFindingKey } from "@/lib/alerts/alert-scope";
import type { ShardAssignment } from "@/lib/collector/shards";
import {
  createDetectorMemory,
  createMemoryPersister,
  type DetectorMemory,
  type Finding,
  loadDetectorMemoryEntries,
  type MemoryEntryChange,
  type MemoryPersister,
  parseDetectorMemory,
  type RuleMemory,
} from "@/lib/detect";
import { translationRule } from "@/lib/detect/translation-rule";
import { getLogger } from "@/lib/logger";
import type { Store } from "@/lib/store";
import { createTranslationMemoryStore, type StoredWatch, type TranslationMemory } from "./translation-memory";

const log = getLogger("rules");
/** Where the previous version kept the whole detector memory as one JSON value: read once (an upgrade), never written. */
const legacyMemoryKey = "detector-memory";
/** The translation rule's findings are kept with its checkpoint watch (translation-memory.ts), time-free. */
const translationTypes: ReadonlySet<string> = new Set(translationRule.types);

/** Reads every rule's memory before a cycle and writes what the cycle changed. */
export class RuleMemoryKeeper {
  private detector: DetectorMemory | null = null;
  // Lists the entries that changed since the store last got them; null after a failed write (the next cycle
  // compares with what the store holds).
  private persister: MemoryPersister | null = null;
  // The shards the held detector memory was read for (scope only).
  private loadedShards: readonly number[] = [];
  private translation: TranslationMemory | null = null;
  private readonly watch: StoredWatch;

  constructor(
    private readonly store: Store,
    private readonly scope: ShardAssignment | null = null,
  ) {
    this.watch = createTranslationMemoryStore(store, scope);
  }

  /**
   * Every rule's memory to judge the cycle `now` with: read from the store by the first cycle, then as the last
   * cycle left it (following the held shards). A failed read throws: the cycle fails and the next reads again.
   */
  async load(now: number): Promise<RuleMemory> {
    if (this.detector === null) await this.restore();
    else if (this.scope !== null && !sameShards(this.scope.held(), this.loadedShards)) await this.followShards(this.scope);
    this.translation = await this.watch.follow(this.translation, now);
    const detector = this.detector!;
    const { findings, watch } = this.translation;
    return { ...detector, lastFindings: [...detector.lastFindings, ...findings], checkpointWatch: watch };
  }

  /**
   * Keeps the memory the engine returned for the cycle `now` and writes what changed. A failed write is logged, never
   * thrown (a store error never hides alerts): the next cycle writes what differs from what the store holds.
   */
  async save(memory: RuleMemory, now: number): Promise<void> {
    const detectorFindings: Finding[] = [];
    const translationFindings: Finding[] = [];
    for (const f of memory.lastFindings) (translationTypes.has(f.type) ? translationFindings : detectorFindings).push(f);
    const { version, events, syncMarkers, positions, committed } = memory;
    this.detector = { version, events, syncMarkers, positions, committed, lastFindings: detectorFindings };
    this.translation = { watch: memory.checkpointWatch, findings: translationFindings };
    await this.watch.save(this.translation, now).catch((err: unknown) =>
      log.error({ err: err instanceof Error ? err.message : String(err) }, "writing the checkpoint watch to the store failed"),
    );
    try {
      if (this.scope === null) {
        this.persister ??= createMemoryPersister(await this.store.loadDetectorMemoryEntries());
        await this.store.saveDetectorMemoryEntries(this.persister.listChanges(this.detector, now));
      } else {
        this.persister ??= (await loadShardMemory(this.store, this.loadedShards)).persister;
        const changes = this.persister.listChanges(this.detector, now);
        await this.store.saveDetectorMemoryEntries(scopeMemoryChanges(changes, this.scope));
      }
    } catch (err) {
      this.persister = null;
      const why = err instanceof Error ? err.message : String(err);
      log.error({ err: why }, "writing the detector memory to the store failed");
    }
  }

  /** The stored detector memory, and a persister that knows what the store holds. */
  private async restore(): Promise<void> {
    const shards = this.scope?.held() ?? null;
    if (shards !== null) {
      const loaded = await loadShardMemory(this.store, shards);
      for (const err of loaded.errors) log.warn({ err }, "a shard's stored detector memory is unreadable; it starts afresh");
      [this.detector, this.persister, this.loadedShards] = [loaded.memory, loaded.persister, shards];
      return;
    }
    const entries = await this.store.loadDetectorMemoryEntries();
    if (entries.length > 0) {
      const loaded = loadDetectorMemoryEntries(entries);
      if (loaded.error) log.warn({ err: loaded.error }, "stored detector memory unreadable; starting afresh");
      [this.detector, this.persister] = [loaded.memory, createMemoryPersister(entries)];
      return;
    }
    // A store without entries may be one the previous version wrote (the whole memory under one key): that is read,
    // and the first cycle writes it all as entries.
    [this.detector, this.persister] = [await loadLegacyMemory(this.store), createMemoryPersister()];
  }

  /** Follows the held shards (module comment); a failed read throws before anything changed. */
  private async followShards(assignment: ShardAssignment): Promise<void> {
    const held = assignment.held();
    const gained = held.filter((s) => !this.loadedShards.includes(s));
    const isKept = (owner: string) => {
      const shard = assignment.shardOfOwner(owner);
      return held.includes(shard) && this.loadedShards.includes(shard);
    };
    const gainedMemory = await loadShardMemory(this.store, gained);
    for (const err of gainedMemory.errors) log.warn({ err }, "a shard's stored detector memory is unreadable; it starts afresh");
    // Entries that did not load stay in the store until a persister that read them deletes them: the next write
    // reads the held shards' entries again, as after a failed write.
    if (gainedMemory.errors.length > 0) this.persister = null;
    // The persister still knows the kept shards' stored entries; this cycle's write rewrites the gained shards' once.
    this.detector = mergeDetectorMemories([selectDetectorMemory(this.detector!, isKept), gainedMemory.memory]);
    this.loadedShards = held;
  }
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
 * The owner of a detector memory entry (lib/detect/memory-persistence.ts): `event|` and `finding|` hold a finding
 * key, `sync|`, `stall|` and `committed|` a flow partition key (`<flow>|<topic>|<partition>`); `cycle-at` (no kind)
 * belongs to every shard, null.
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
 * The held shards' detector memory, each shard read under its prefix and restored with its own `cycle-at` (the
 * previous owner's last cycle), merged; and a persister that knows what the store holds for them.
 */
export async function loadShardMemory(
  store: Pick<Store, "loadDetectorMemoryEntries">,
  shards: readonly number[],
): Promise<{ memory: DetectorMemory; persister: MemoryPersister; errors: string[] }> {
  const perShard = await Promise.all(shards.map(async (s) => (await store.loadDetectorMemoryEntries(shardPrefix(s))).map(([key, value]): [string, string] => [key.slice(shardPrefix(s).length), value])));
  const loaded = perShard.map((entries) => loadDetectorMemoryEntries(entries));
  return {
    memory: mergeDetectorMemories(loaded.map((l) => l.memory)),
    // cycle-at is written anew by the first cycle; the persister compares everything else with what is stored.
    persister: createMemoryPersister(perShard.flat().filter(([key]) => ownerOfMemoryEntry(key) !== null)),
    errors: loaded.flatMap((l) => (l.error === null ? [] : [l.error])),
  };
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
