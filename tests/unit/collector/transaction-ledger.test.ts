import { describe, expect, it } from "vitest";
import {
  alignPartitionLedger,
  applyLedgerRead,
  classifyBatches,
  countLedgerRange,
  createPartitionLedger,
  parseLedgers,
  pruneLedger,
  serializeLedgers,
  windowGraceMs,
  type PartitionLedger,
} from "@/lib/collector/transaction-ledger";
import type { BatchSummary, FetchedTransactions } from "@/lib/kafka";

/**
 * Batch sequences as a broker returns them to a read_committed Fetch: data batches of a
 * transactional producer (pid ≥ 0, transactional bit), plain idempotent or non-idempotent
 * batches, one control batch (one marker) per partition per transaction end, and the aborted
 * transactions overlapping the fetched range from the broker's aborted-transaction index.
 */
const data = (baseOffset: bigint, records: number, producerId = 7n, transactional = true): BatchSummary => ({
  baseOffset,
  lastOffset: baseOffset + BigInt(records) - 1n,
  records,
  producerId,
  transactional,
  control: null,
});
const marker = (offset: bigint, control: "commit" | "abort", producerId = 7n): BatchSummary => ({ baseOffset: offset, lastOffset: offset, records: 1, producerId, transactional: true, control });
const read = (batches: BatchSummary[], aborted: [bigint, bigint][] = [], lastStableOffset?: bigint): FetchedTransactions => ({
  lastStableOffset: lastStableOffset ?? (batches.at(-1)?.lastOffset ?? -1n) + 1n,
  abortedTransactions: aborted.map(([producerId, firstOffset]) => ({ producerId, firstOffset })),
  batches,
});
const ledgerAt = (logStart: bigint, logEnd: bigint) => createPartitionLedger("east", "orders", 0, { topicId: "id-1", logStart, logEnd });

describe("classifyBatches (Kafka's CompletedFetch rules)", () => {
  it("tells committed, aborted and plain records and markers apart, two producers interleaved", () => {
    // pid 7: commit 0–2 (marker 3); pid 7 aborts 4–5, pid 8 commits 6–7 in between, a plain record 8, abort marker 9, commit marker 10.
    const batches = [data(0n, 3), marker(3n, "commit"), data(4n, 2), data(6n, 2, 8n), data(8n, 1, -1n, false), marker(9n, "abort"), marker(10n, "commit", 8n)];
    expect(classifyBatches(read(batches, [[7n, 4n]]), 0n)).toEqual([
      { kind: "data", first: 0n, last: 2n, records: 3n },
      { kind: "marker", first: 3n, last: 3n, records: 1n },
      { kind: "aborted", first: 4n, last: 5n, records: 2n },
      { kind: "data", first: 6n, last: 7n, records: 2n },
      { kind: "data", first: 8n, last: 8n, records: 1n },
      { kind: "marker", first: 9n, last: 9n, records: 1n },
      { kind: "marker", first: 10n, last: 10n, records: 1n },
    ]);
  });

  it("classifies a transaction that began before the fetch offset (the broker lists it) and the producer's next, committed one", () => {
    // Fetch from 20: pid 7's aborted transaction began at 15; its batch 20–21, abort marker 22, then pid 7 commits 23–24.
    const batches = [data(20n, 2), marker(22n, "abort"), data(23n, 2), marker(25n, "commit")];
    expect(classifyBatches(read(batches, [[7n, 15n]]), 20n).map((s) => s.kind)).toEqual(["aborted", "marker", "data", "marker"]);
  });

  it("does not abort a non-transactional batch of a producer id in the aborted set", () => {
    expect(classifyBatches(read([data(0n, 2, 7n, false), marker(2n, "abort")], [[7n, 0n]]), 0n).map((s) => s.kind)).toEqual(["data", "marker"]);
  });
});

describe("applyLedgerRead", () => {
  it("moves the cursor past the last batch and merges contiguous segments of one kind", () => {
    let ledger = ledgerAt(0n, 12n);
    ledger = applyLedgerRead(ledger, read([data(0n, 3), marker(3n, "commit"), data(4n, 2)], [[7n, 4n]], 6n));
    expect([ledger.cursor, ledger.stuck]).toEqual([6n, false]);
    ledger = applyLedgerRead(ledger, read([data(6n, 3), marker(9n, "abort"), marker(10n, "commit", 8n), data(11n, 1, -1n, false)], [[7n, 4n]]));
    expect(ledger.cursor).toBe(12n);
    expect(ledger.window).toEqual([
      { kind: "data", first: 0n, last: 2n, records: 3n },
      { kind: "marker", first: 3n, last: 3n, records: 1n },
      { kind: "aborted", first: 4n, last: 8n, records: 5n },
      { kind: "marker", first: 9n, last: 10n, records: 2n },
      { kind: "data", first: 11n, last: 11n, records: 1n },
    ]);
    expect(ledger.aborted).toEqual([{ kind: "aborted", first: 4n, last: 8n, records: 5n }]);
  });

  it("marks a partition stuck when nothing came back below the last stable offset (KIP-74), not when it waits at an open transaction", () => {
    const ledger = ledgerAt(0n, 500n);
    expect(applyLedgerRead(ledger, read([], [], 300n)).stuck).toBe(true);
    expect(applyLedgerRead(ledger, read([], [], 0n)).stuck).toBe(false);
    expect(applyLedgerRead(ledger, read([], [], 0n)).cursor).toBe(0n);
  });
});

describe("alignPartitionLedger", () => {
  it("skips offsets deleted before they were read as unread, and starts over on a new topic ID or a log end below the cursor", () => {
    const ledger = applyLedgerRead(ledgerAt(0n, 10n), read([data(0n, 3), marker(3n, "commit")]));
    const skipped = alignPartitionLedger(ledger, { topicId: "id-1", logStart: 8n, logEnd: 12n });
    expect([skipped.cursor, skipped.logEnd, skipped.window.at(-1)]).toEqual([8n, 12n, { kind: "unread", first: 4n, last: 7n, records: 4n }]);
    const recreated = alignPartitionLedger(ledger, { topicId: "id-2", logStart: 0n, logEnd: 2n });
    expect([recreated.topicId, recreated.cursor, recreated.window]).toEqual(["id-2", 0n, []]);
    const truncated = alignPartitionLedger(ledger, { topicId: "id-1", logStart: 0n, logEnd: 3n });
    expect([truncated.cursor, truncated.window]).toEqual([0n, []]);
  });
});

describe("pruneLedger", () => {
  const full = () => applyLedgerRead(ledgerAt(0n, 12n), read([data(0n, 3), marker(3n, "commit"), data(4n, 2), marker(6n, "abort"), data(7n, 5, 8n, false)], [[7n, 4n]]));

  it("keeps window segments until every flow's position passed them for the grace period", () => {
    // MM2 at 4: the segments ending below it go, the aborted one at 4–5 stays.
    let ledger = pruneLedger(full(), 0n, 4n, 1_000);
    expect([ledger.windowFrom, ledger.window.length]).toEqual([4n, 3]);
    ledger = pruneLedger(ledger, 0n, 12n, 1_000 + windowGraceMs - 1);
    expect([ledger.windowFrom, ledger.window.length]).toEqual([4n, 3]);
    // The floor of 4 expired: 12 is the lowest position now; the segment 7–11 ends below it.
    ledger = pruneLedger(ledger, 0n, 12n, 1_000 + windowGraceMs);
    expect([ledger.windowFrom, ledger.window]).toEqual([12n, []]);
  });

  it("records nothing for an unknown position, and drops aborted ranges once the log start passed them", () => {
    const ledger = pruneLedger(full(), 5n, null, 1_000);
    expect(ledger.floors).toEqual([]);
    expect(ledger.window.length).toBe(5);
    expect(ledger.aborted).toEqual([{ kind: "aborted", first: 4n, last: 5n, records: 2n }]);
    expect(pruneLedger(full(), 6n, null, 1_000).aborted).toEqual([]);
  });
});

describe("ledger bounds", () => {
  it("keeps the newest 2,000 window segments and 1,000 aborted ranges, the merged ones with their counts", () => {
    // 1,005 aborted transactions of 2 records, each followed by its abort marker: 2,010 segments.
    const batches = Array.from({ length: 1_005 }, (_, i) => [data(BigInt(i * 3), 2, 7n), marker(BigInt(i * 3 + 2), "abort")]).flat();
    const aborted = Array.from({ length: 1_005 }, (_, i): [bigint, bigint] => [7n, BigInt(i * 3)]);
    const ledger = pruneLedger(applyLedgerRead(ledgerAt(0n, 3_015n), read(batches, aborted)), 0n, null, 1_000);
    expect([ledger.window.length, ledger.windowFrom, ledger.window[0]]).toEqual([2_000, 15n, { kind: "aborted", first: 15n, last: 16n, records: 2n }]);
    expect(ledger.aborted.length).toBe(1_000);
    expect(ledger.aborted.reduce((sum, a) => sum + a.records, 0n)).toBe(2_010n);
    expect(ledger.aborted[0]).toEqual({ kind: "aborted", first: 0n, last: 16n, records: 12n });
  });
});

describe("countLedgerRange", () => {
  const ledger = (): PartitionLedger => {
    const l = applyLedgerRead(ledgerAt(100n, 140n), read([data(100n, 20), marker(120n, "commit"), data(121n, 5), marker(126n, "abort"), data(127n, 3)], [[7n, 121n]]));
    return { ...l, window: [...l.window.slice(0, 2), ...l.window.slice(2)] };
  };

  it("splits a range into committed records, aborted records and markers, a dense segment cut at its edges", () => {
    expect(countLedgerRange(ledger(), 110n, 129n)).toEqual({ committed: 13n, aborted: 5n, markers: 2n, unknown: [] });
  });

  it("names the offsets before the window and past the cursor as unknown", () => {
    expect(countLedgerRange(ledger(), 95n, 135n)).toEqual({ committed: 23n, aborted: 5n, markers: 2n, unknown: [{ first: 95n, last: 99n }, { first: 130n, last: 135n }] });
  });

  it("counts a segment with fewer records than offsets (compaction) only whole, else its overlap is unknown", () => {
    const sparse = { ...ledgerAt(0n, 10n), cursor: 10n, window: [{ kind: "data" as const, first: 0n, last: 9n, records: 6n }] };
    expect(countLedgerRange(sparse, 0n, 9n)).toEqual({ committed: 6n, aborted: 0n, markers: 0n, unknown: [] });
    expect(countLedgerRange(sparse, 5n, 9n)).toEqual({ committed: 0n, aborted: 0n, markers: 0n, unknown: [{ first: 5n, last: 9n }] });
  });

  it("counts unread (skipped) offsets as unknown", () => {
    const skipped = alignPartitionLedger(ledger(), { topicId: "id-1", logStart: 135n, logEnd: 140n });
    expect(countLedgerRange(skipped, 128n, 136n)).toEqual({ committed: 2n, aborted: 0n, markers: 0n, unknown: [{ first: 130n, last: 136n }] });
  });
});

describe("serializeLedgers / parseLedgers", () => {
  it("round-trips a ledger through JSON, offsets as decimal strings", () => {
    const ledger = pruneLedger(applyLedgerRead(ledgerAt(0n, 7n), read([data(0n, 2), marker(2n, "abort"), data(3n, 4, -1n, false)], [[7n, 0n]])), 0n, 3n, 5_000);
    const json = serializeLedgers(new Map([["east|orders|0", ledger]]));
    expect(json).toContain('"cursor":"7"');
    expect(parseLedgers(json)).toEqual({ ledgers: [ledger], error: null });
  });

  it("gives no ledgers and the reason for anything unreadable", () => {
    expect(parseLedgers(null)).toEqual({ ledgers: [], error: null });
    expect(parseLedgers("{").ledgers).toEqual([]);
    expect(parseLedgers('[{"cluster":"east"}]').error).not.toBeNull();
  });
});
