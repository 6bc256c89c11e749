import type { CollectorPersistence } from "./persistence";
import { type ShardAssignment, shardValueKey } from "./shards";
import { type PartitionLedger, parseLedgers, serializeLedgers } from "./transaction-ledger";
import { ledgerKey } from "./types";

/** Store key of the transaction ledgers without scaleOut; with it, each shard's are under `transaction-ledger@<shard>`. */
export const ledgerStoreKey = "transaction-ledger";

/** The parts of a flow that say which source partitions it copies. */
interface FlowPartitions {
  id: string;
  source: string;
  partitions: readonly { topic: string; partition: number }[];
}

/**
 * The transaction ledgers of a collector sharing the work (config scaleOut), stored per shard: a ledger is keyed by
 * its source partition, which flows of several shards may copy, so it belongs to every held shard one of whose flows
 * copied it, and is stored under each. A collector reads only the shards it gains, writes only the shards it holds,
 * and forgets a ledger once no shard it holds has it, so collectors never overwrite each other's ledgers and a
 * shard's new owner continues where the previous one was.
 */
export class LedgerShards {
  private readonly shardsOf = new Map<string, Set<number>>();
  private loaded: readonly number[] = [];
  /** What each held shard's value holds in the store as far as this collector knows (absent: unknown or none). */
  private readonly written = new Map<number, string>();

  constructor(private readonly assignment: ShardAssignment) {}

  /**
   * Before a cycle reads anything: the lost shards' ledgers are dropped (unless a kept shard has them too) and the
   * gained shards' read. A gained shard never stored reads the single value of the version before (an upgrade), whose
   * ledgers belong to no shard until a held flow claims them. Mutates `ledgers`; a failed read throws and changes
   * nothing (the next cycle tries again). Returns why stored ledgers were unreadable.
   */
  async follow(ledgers: Map<string, PartitionLedger>, store: Pick<CollectorPersistence, "getValue">): Promise<string[]> {
    const held = this.assignment.held();
    const gained = held.filter((s) => !this.loaded.includes(s));
    const lost = this.loaded.filter((s) => !held.includes(s));
    if (gained.length === 0 && lost.length === 0) return [];
    const raw = await Promise.all(gained.map((s) => store.getValue(shardValueKey(ledgerStoreKey, s))));
    const legacy = raw.includes(null) ? await store.getValue(ledgerStoreKey) : null;
    for (const s of lost) this.written.delete(s);
    for (const [key, shards] of this.shardsOf) {
      for (const s of lost) shards.delete(s);
      if (shards.size === 0) this.forget(ledgers, key);
    }
    const errors: string[] = [];
    gained.forEach((shard, i) => {
      const value = raw[i] ?? null;
      const stored = parseLedgers(value ?? legacy);
      if (stored.error !== null) errors.push(`shard ${shard}: ${stored.error}`);
      if (value === null) this.written.delete(shard);
      else this.written.set(shard, value);
      for (const l of stored.ledgers) this.add(ledgers, l, value === null ? null : shard);
    });
    this.loaded = held;
    return errors;
  }

  /**
   * After the cycle's flows are read: each ledger belongs to the held shards whose flows copy its partition (a shard
   * keeps a ledger while held, as the whole store kept it before); an upgrade's ledger no held flow copies is dropped.
   */
  claim(ledgers: Map<string, PartitionLedger>, flows: readonly FlowPartitions[]): void {
    // Without ledgers no partition is looked up (a flow's partitions array is made only when read).
    if (ledgers.size > 0) {
      for (const flow of flows) {
        const shard = this.assignment.shardOfOwner(flow.id);
        for (const p of flow.partitions) {
          const key = ledgerKey(flow.source, p.topic, p.partition);
          if (ledgers.has(key)) this.shardsOf.set(key, (this.shardsOf.get(key) ?? new Set()).add(shard));
        }
      }
    }
    for (const key of ledgers.keys()) if ((this.shardsOf.get(key)?.size ?? 0) === 0) this.forget(ledgers, key);
    // A ledger the cycle dropped (its partition is gone) leaves no shards behind for a later one of the same name.
    for (const key of this.shardsOf.keys()) if (!ledgers.has(key)) this.shardsOf.delete(key);
  }

  /** Writes the value of each held shard whose ledgers changed (a failed write is tried again by the next cycle). */
  async save(ledgers: ReadonlyMap<string, PartitionLedger>, store: Pick<CollectorPersistence, "setValue">): Promise<void> {
    for (const shard of this.assignment.held()) {
      const value = serializeLedgers(new Map([...ledgers].filter(([key]) => this.shardsOf.get(key)?.has(shard) === true)));
      if (this.written.get(shard) === value) continue;
      await store.setValue(shardValueKey(ledgerStoreKey, shard), value);
      this.written.set(shard, value);
    }
  }

  /**
   * A stored ledger joins what is held. When a kept shard holds the same partition's ledger of the same topic ID, the
   * one that starts lower stays: the window below a flow's position is what DATA_LOSS counts, and the cursor is read
   * forward anyway (a stored one of another topic ID is from before a reset: the held one stays).
   */
  private add(ledgers: Map<string, PartitionLedger>, ledger: PartitionLedger, shard: number | null): void {
    const key = ledgerKey(ledger.cluster, ledger.topic, ledger.partition);
    const held = ledgers.get(key);
    // The previous version's single value (shard null) is older than any ledger this collector holds.
    const lower = shard !== null && held !== undefined && ledger.topicId === held.topicId && ledger.windowFrom < held.windowFrom;
    if (held === undefined || lower) ledgers.set(key, ledger);
    const shards = this.shardsOf.get(key) ?? new Set<number>();
    if (shard !== null) shards.add(shard);
    this.shardsOf.set(key, shards);
  }

  private forget(ledgers: Map<string, PartitionLedger>, key: string): void {
    ledgers.delete(key);
    this.shardsOf.delete(key);
  }
}
