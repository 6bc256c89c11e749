import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createPartitionLedger, type PartitionLedger, parseLedgers, serializeLedgers } from "@/lib/collector/transaction-ledger";
import { LedgerShards } from "@/lib/collector/transaction-ledger-shards";
import { ledgerKey } from "@/lib/collector/types";
import { createSqliteStore, type Store } from "@/lib/store";
import { makeFlow, makeFlowPartition } from "../translation/fixtures";
import { holdShards, moveShards } from "./shard-fixtures";

/** With 4 shards: east->west is on shard 1, east->south on shard 2; both copy east's `orders`. */
const SHARDS = 4;
const eastWest = makeFlow({ partitions: [makeFlowPartition({ partition: 0, transactionMarkersSeen: true })] });
const eastSouth = makeFlow({ id: "east->south", target: "south", partitions: [makeFlowPartition({ partition: 0, transactionMarkersSeen: true })] });

/**
 * The ledger of east `topic`/`partition` as a collector builds it reading from `windowFrom`: committed records up to
 * `cursor` - 2, then a commit marker at `cursor` - 1.
 */
function ledgerOf(topic: string, partition: number, windowFrom: bigint, cursor: bigint): PartitionLedger {
  const created = createPartitionLedger("east", topic, partition, { topicId: "5f3c2a10-8b1e-4c59-9a77-2d6e0f4b1c33", logStart: windowFrom, logEnd: cursor });
  return {
    ...created,
    cursor,
    window: [
      { kind: "data", first: windowFrom, last: cursor - 2n, records: cursor - 1n - windowFrom },
      { kind: "marker", first: cursor - 1n, last: cursor - 1n, records: 1n },
    ],
  };
}

const ordersKey = ledgerKey("east", "orders", 0);
/** Each ledger as [key, windowFrom, cursor]. */
const describeLedgers = (ledgers: Iterable<PartitionLedger>) => [...ledgers].map((l) => [ledgerKey(l.cluster, l.topic, l.partition), String(l.windowFrom), String(l.cursor)]);
const storedLedgers = async (store: Store, key: string) => describeLedgers(parseLedgers(await store.getValue(key)).ledgers);

const holding = (shards: number[]) => holdShards(shards, SHARDS);

/** A store that lists the names it was asked to read and write. */
function countingStore(store: Store) {
  const reads: string[] = [];
  const writes: string[] = [];
  return {
    reads,
    writes,
    getValue: (name: string) => (reads.push(name), store.getValue(name)),
    setValue: (name: string, value: string) => (writes.push(name), store.setValue(name, value)),
  };
}

let dir: string | undefined;
const stores: Store[] = [];

function openStore(): Store {
  dir ??= mkdtempSync(path.join(os.tmpdir(), "gapwatch-ledger-shards-"));
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("transaction ledgers stored per shard (scaleOut)", () => {
  it("two collectors copying the same source partition keep their own ledgers; a shard's new owner takes the one that starts lower", async () => {
    const store = openStore();
    const aShards = holding([1]);
    const bShards = holding([0, 2, 3]);
    const a = { shards: new LedgerShards(aShards), ledgers: new Map<string, PartitionLedger>() };
    const b = { shards: new LedgerShards(bShards), ledgers: new Map<string, PartitionLedger>() };
    expect(await a.shards.follow(a.ledgers, store)).toEqual([]);
    expect(await b.shards.follow(b.ledgers, store)).toEqual([]);
    // Each collector's cycle made its own ledger of east orders/0 for its own flow (A has read it since offset 100).
    a.ledgers.set(ordersKey, ledgerOf("orders", 0, 100n, 400n));
    b.ledgers.set(ordersKey, ledgerOf("orders", 0, 300n, 420n));
    a.shards.claim(a.ledgers, [eastWest]);
    b.shards.claim(b.ledgers, [eastSouth]);
    await a.shards.save(a.ledgers, store);
    await b.shards.save(b.ledgers, store);
    expect(await storedLedgers(store, "transaction-ledger@1")).toEqual([[ordersKey, "100", "400"]]);
    expect(await storedLedgers(store, "transaction-ledger@2")).toEqual([[ordersKey, "300", "420"]]);
    expect([await store.getValue("transaction-ledger@0"), await store.getValue("transaction-ledger@3"), await store.getValue("transaction-ledger")]).toEqual(["[]", "[]", null]);

    // A loses shard 1: it holds no ledger any more, and the store keeps A's for the next owner.
    moveShards(aShards, []);
    await a.shards.follow(a.ledgers, store);
    expect(a.ledgers.size).toBe(0);
    // B gains it: it reads shard 1's value only, and keeps A's ledger (from 100) under both shards.
    moveShards(bShards, [0, 1, 2, 3]);
    const counted = countingStore(store);
    expect(await b.shards.follow(b.ledgers, counted)).toEqual([]);
    expect(counted.reads).toEqual(["transaction-ledger@1"]);
    expect(describeLedgers(b.ledgers.values())).toEqual([[ordersKey, "100", "400"]]);
    b.shards.claim(b.ledgers, [eastWest, eastSouth]);
    await b.shards.save(b.ledgers, counted);
    // Shard 1's value is as read; shard 2's now holds the ledger from 100.
    expect(counted.writes).toEqual(["transaction-ledger@2"]);
    expect(await storedLedgers(store, "transaction-ledger@2")).toEqual([[ordersKey, "100", "400"]]);
    // Nothing changed since: nothing is read or written.
    await b.shards.follow(b.ledgers, counted);
    await b.shards.save(b.ledgers, counted);
    expect([counted.reads.length, counted.writes.length]).toEqual([1, 1]);
  });

  it("a gained shard's ledger of an older topic ID (the topic was re-created since) does not replace the held one", async () => {
    const store = openStore();
    const before = { ...ledgerOf("orders", 0, 100n, 400n), topicId: "0b9d4e61-3a7f-4c2e-8d15-6f0a9c3e7b24" };
    await store.setValue("transaction-ledger@1", serializeLedgers(new Map([[ordersKey, before]])));
    const assignment = holding([2]);
    const shards = new LedgerShards(assignment);
    const ledgers = new Map<string, PartitionLedger>();
    await shards.follow(ledgers, store);
    ledgers.set(ordersKey, ledgerOf("orders", 0, 300n, 420n));
    shards.claim(ledgers, [eastSouth]);
    moveShards(assignment, [1, 2]);
    await shards.follow(ledgers, store);
    expect(describeLedgers(ledgers.values())).toEqual([[ordersKey, "300", "420"]]);
  });

  it("a shard never stored takes the previous version's single value once, keeping the ledgers its flows copy", async () => {
    const store = openStore();
    const legacy = serializeLedgers(new Map([[ordersKey, ledgerOf("orders", 0, 100n, 400n)], [ledgerKey("east", "payments", 1), ledgerOf("payments", 1, 50n, 90n)]]));
    await store.setValue("transaction-ledger", legacy);
    await store.setValue("transaction-ledger@3", "{not json");
    const shards = new LedgerShards(holding([1, 3]));
    const ledgers = new Map<string, PartitionLedger>();
    const errors = await shards.follow(ledgers, store);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^shard 3: /);
    expect(describeLedgers(ledgers.values())).toEqual([
      [ordersKey, "100", "400"],
      ["east|payments|1", "50", "90"],
    ]);
    // East->west copies orders only: payments/1 is another collector's.
    shards.claim(ledgers, [eastWest]);
    await shards.save(ledgers, store);
    expect(await storedLedgers(store, "transaction-ledger@1")).toEqual([[ordersKey, "100", "400"]]);
    expect(await store.getValue("transaction-ledger@3")).toBe("[]");
    expect(await store.getValue("transaction-ledger")).toBe(legacy);

    // A restart reads the shards' own values, not the old one again.
    const restarted = countingStore(store);
    const again = new Map<string, PartitionLedger>();
    await new LedgerShards(holding([1, 3])).follow(again, restarted);
    expect(restarted.reads).toEqual(["transaction-ledger@1", "transaction-ledger@3"]);
    expect(describeLedgers(again.values())).toEqual([[ordersKey, "100", "400"]]);
  });
});
