import { describe, expect, it } from "vitest";
import type { PartitionLedger } from "@/lib/collector/transaction-ledger";
import { advanceTransactionLedgers, ledgerBytesPerPartition } from "@/lib/collector/transaction-ledger-read";
import { ledgerKey, type ClusterSnapshot } from "@/lib/collector/types";
import type { ClusterReader, FetchOptions, FetchRequestItem, FetchResult } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeCluster, makeFlow, makeFlowPartition, makeTopic, T0 } from "../detect/fixtures";

/** A fetch-only reader that also records the options of each fetchPartitions call. */
function createRecordingReader(answers: Record<string, FetchResult>) {
  const calls: { items: FetchRequestItem[]; opts: FetchOptions | undefined }[] = [];
  const base = createFetchReader("east", answers);
  const reader: ClusterReader = {
    ...base,
    fetchPartitions: (items, opts) => {
      calls.push({ items, opts });
      return base.fetchPartitions(items, opts);
    },
  };
  return { reader, calls };
}

/** east's `orders` with partitions 0–2: log start 0, log ends 30 / 30 / 1000. */
const clusters = (overrides: Partial<ClusterSnapshot> = {}) =>
  new Map([["east", makeCluster("east", { topics: [makeTopic("orders", [{ partition: 0, logEnd: 30n }, { partition: 1, logEnd: 30n }, { partition: 2, logEnd: 1000n }])], ...overrides })]]);

/** A read_committed answer: pid 7's transaction 0–3 aborted (marker 4), then committed 5–8 (marker 9). */
const answer: FetchResult = {
  records: [],
  highWatermark: 30n,
  logStartOffset: 0n,
  nextOffset: 10n,
  controlBatches: 2,
  transactions: {
    lastStableOffset: 30n,
    abortedTransactions: [{ producerId: 7n, firstOffset: 0n }],
    batches: [
      { baseOffset: 0n, lastOffset: 3n, records: 4, producerId: 7n, transactional: true, control: null },
      { baseOffset: 4n, lastOffset: 4n, records: 1, producerId: 7n, transactional: true, control: "abort" },
      { baseOffset: 5n, lastOffset: 8n, records: 4, producerId: 7n, transactional: true, control: null },
      { baseOffset: 9n, lastOffset: 9n, records: 1, producerId: 7n, transactional: true, control: "commit" },
    ],
  },
};

describe("advanceTransactionLedgers", () => {
  it("reads only the partitions where markers were seen, in ONE read_committed fetchPartitions for the source cluster", async () => {
    const flow = makeFlow({
      partitions: [
        makeFlowPartition({ partition: 0, transactionMarkersSeen: true, sourceLogEnd: 30n, mm2Position: 20n }),
        makeFlowPartition({ partition: 1, transactionMarkersSeen: false, sourceLogEnd: 30n, mm2Position: 30n }),
      ],
    });
    const { reader, calls } = createRecordingReader({ "orders/0": answer });
    const ledgers = new Map<string, PartitionLedger>();
    const { views, errors } = await advanceTransactionLedgers(ledgers, [flow], clusters(), new Map([["east", reader]]), T0);
    expect(errors).toEqual([]);
    expect(calls).toEqual([{ items: [{ topic: "orders", partition: 0, offset: 0n }], opts: { maxBytes: ledgerBytesPerPartition, maxWaitMs: 0, readCommitted: true } }]);
    const view = views[ledgerKey("east", "orders", 0)]!;
    expect([view.readFrom, view.cursor, view.logEnd]).toEqual([0n, 10n, 30n]);
    expect(view.aborted).toEqual([{ kind: "aborted", first: 0n, last: 3n, records: 4n }]);
    expect(Object.keys(views)).toEqual([ledgerKey("east", "orders", 0)]);
  });

  it("puts a stuck partition first, skips one whose cursor reached the log end, and forgets a deleted topic's ledger", async () => {
    const flow = makeFlow({
      partitions: [0, 1, 2].map((partition) => makeFlowPartition({ partition, transactionMarkersSeen: true, sourceLogEnd: partition === 2 ? 1000n : 30n, mm2Position: 0n })),
    });
    const ledger = (partition: number, cursor: bigint, stuck: boolean): PartitionLedger => ({
      cluster: "east",
      topic: "orders",
      partition,
      topicId: "id-orders",
      readFrom: 0n,
      cursor,
      logEnd: 30n,
      aborted: [],
      windowFrom: 0n,
      window: [],
      floors: [],
      stuck,
    });
    const ledgers = new Map([
      [ledgerKey("east", "orders", 0), ledger(0, 10n, false)],
      [ledgerKey("east", "orders", 1), ledger(1, 30n, false)],
      [ledgerKey("east", "orders", 2), ledger(2, 500n, true)],
      [ledgerKey("east", "gone", 0), { ...ledger(0, 5n, false), topic: "gone" }],
    ]);
    const { reader, calls } = createRecordingReader({});
    const { errors } = await advanceTransactionLedgers(ledgers, [flow], clusters(), new Map([["east", reader]]), T0);
    expect(calls.map((c) => c.items.map((i) => `${i.partition}@${i.offset}`))).toEqual([["2@500", "0@10"]]);
    expect(errors).toEqual(["transaction ledger of east orders/2: MISSING_FROM_RESPONSE", "transaction ledger of east orders/0: MISSING_FROM_RESPONSE"]);
    expect([...ledgers.keys()]).toEqual([ledgerKey("east", "orders", 0), ledgerKey("east", "orders", 1), ledgerKey("east", "orders", 2)]);
  });

  it("neither reads nor prunes a ledger whose source cluster did not answer", async () => {
    const flow = makeFlow({ partitions: [makeFlowPartition({ partition: 0, transactionMarkersSeen: true, mm2Position: 20n })] });
    const { reader, calls } = createRecordingReader({ "orders/0": answer });
    const ledgers = new Map<string, PartitionLedger>();
    const { views } = await advanceTransactionLedgers(ledgers, [flow], clusters({ reachable: false, stale: true }), new Map([["east", reader]]), T0);
    expect([calls, views]).toEqual([[], {}]);
  });
});
