import { type ShardAssignment, shardValueKey } from "@/lib/collector/shards";
import { createMemoryPersister, type DetectorMemory, loadDetectorMemoryEntries, type MemoryEntryChange, type MemoryPersister } from "@/lib/detect";
import type { Store } from "@/lib/store";

/**
 * What a collector owns when collectors share the work (config `scaleOut`): every alert, risk and detector memory
 * entry belongs to the flow, cluster or Connect cluster its key names, and so to that owner's shard. A collector
 * loads, reconciles, writes and deletes only those of the shards it holds; stored under a prefix per shard, so that a
 * shard's new owner reads exactly what the previous one left.
 */

/** The flow, cluster or Connect cluster a finding key names: every detector writes `<TYPE>|<owner>|…`. */
export function ownerOfFindingKey(key: string): string {
  const parts = key.split("|", 2);
  return parts[1] ?? parts[0]!;
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

/** The kv name of a shard's risks. */
export function shardRisksKey(shard: number): string {
  return shardValueKey("risks", shard);
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
