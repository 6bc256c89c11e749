import { describe, expect, it } from "vitest";
import { readPointHistory } from "@/lib/collector/sync-history";
import { checkSyncStepWriters, findExcessStep, interleavedReason } from "@/lib/collector/sync-step-writers";
import { flowPartitionKey } from "@/lib/collector/types";
import type { FetchedRecord, FetchRequestItem, FetchResult } from "@/lib/kafka";
import type { SyncPoint } from "@/lib/mm2";
import { createFetchReader } from "./fetch-reader";
import { makeFlow, makeFlowPartition } from "../detect/fixtures";

const record = (offset: bigint, value: string): FetchedRecord => ({ offset, timestamp: 1000, key: null, value: Buffer.from(value), headers: [] });
const fetched = (records: FetchedRecord[], controlBatches = 0): FetchResult => ({ records, highWatermark: 0n, logStartOffset: 0n, nextOffset: 0n, controlBatches });
const sync = (upstream: bigint, downstream: bigint): SyncPoint => ({ upstream, downstream });
const key = (partition: number) => flowPartitionKey("east->west", "orders", partition);

/** MM2 copied 0–99 to 0–99, a local producer wrote 30 records, then MM2 copied 100 at 130 (a sync at once). */
const interleaved = [sync(0n, 0n), sync(99n, 99n), sync(100n, 130n)];
const row = (partition: number, latest: SyncPoint, overrides = {}) =>
  makeFlowPartition({ partition, latestSync: latest, targetLogEnd: 150n, sourceLogEnd: 120n, mm2Position: 120n, ...overrides });

/** A reader answering each fetch by the offset asked: the record there, per partition. */
function createOffsetReader(records: Record<string, Record<string, FetchResult>>, seen: FetchRequestItem[][]) {
  const reader = createFetchReader("west", {}, seen);
  return {
    ...reader,
    fetchPartitions: (items: FetchRequestItem[]) => {
      seen.push(items);
      const answer = (i: FetchRequestItem) => records[`${i.topic}/${i.partition}`]?.[i.offset.toString()] ?? { error: "MISSING_FROM_RESPONSE" };
      return Promise.resolve(new Map(items.map((i) => [`${i.topic}/${i.partition}`, answer(i)])));
    },
  };
}

describe("findExcessStep", () => {
  it("finds the newest step with more target records than upstream offsets, and where MM2's first copy would be", () => {
    const p = row(0, sync(100n, 130n));
    expect(findExcessStep(readPointHistory(interleaved), undefined, p)).toEqual({ partition: p, from: sync(99n, 99n), to: sync(100n, 130n), firstCopyAt: 100n });
  });

  it("ignores steps already looked at, steps back (MM2 resumed lower) and dense steps", () => {
    const p = row(0, sync(100n, 130n));
    expect(findExcessStep(readPointHistory(interleaved), 130n, p)).toBeNull();
    expect(findExcessStep(readPointHistory([sync(50n, 50n), sync(20n, 60n)]), undefined, p)).toBeNull();
    expect(findExcessStep(readPointHistory([sync(0n, 0n), sync(99n, 99n), sync(100n, 100n)]), undefined, p)).toBeNull();
  });

  it("does not look where retention deleted MM2's first copy on the target", () => {
    expect(findExcessStep(readPointHistory(interleaved), undefined, row(0, sync(100n, 130n), { targetLogStart: 101n }))).toBeNull();
  });
});

describe("checkSyncStepWriters", () => {
  it("flags another producer where the records differ, and keeps MM2's real second copies as re-copies", async () => {
    // orders/0: a local writer (offset 100 holds its record); orders/1: MM2 restarted and copied 100 again at 130.
    const flow = makeFlow({ partitions: [row(0, sync(100n, 130n)), row(1, sync(100n, 130n))] });
    const history = new Map([[key(0), interleaved], [key(1), interleaved]]);
    const seen: FetchRequestItem[][] = [];
    const reader = createOffsetReader(
      {
        "east.orders/0": { "100": fetched([record(100n, "local-0"), record(101n, "local-1")]), "130": fetched([record(130n, "order 100")]) },
        "east.orders/1": { "100": fetched([record(100n, "order 100")]), "130": fetched([record(130n, "order 100")]) },
      },
      seen,
    );
    const untrusted = new Map<string, string>();
    const checked = new Map<string, bigint>();
    const { found, errors } = await checkSyncStepWriters([flow], new Map([["west", reader]]), history, checked, untrusted);
    expect(errors).toEqual([]);
    expect(seen.map((items) => items.map((i) => `${i.topic}/${i.partition}@${i.offset}`))).toEqual([
      ["east.orders/0@100", "east.orders/1@100"],
      ["east.orders/0@130", "east.orders/1@130"],
    ]);
    expect([...found]).toEqual([key(0)]);
    expect([...untrusted]).toEqual([[key(0), interleavedReason(sync(99n, 99n), sync(100n, 130n), 100n)]]);
    expect(untrusted.get(key(0))).toBe(
      "the target holds records between MM2's offset syncs 99→99 and 100→130 that are not MM2's copies " +
        "(offset 100 is not MM2's copy of source offset 100): another producer writes to the target topic",
    );
    // Each step is read once: the next cycle with no new sync reads nothing.
    const again: FetchRequestItem[][] = [];
    await checkSyncStepWriters([flow], new Map([["west", createOffsetReader({}, again)]]), history, checked, untrusted);
    expect(again).toEqual([]);
  });

  it("flags nothing where the first copy's offset holds markers, or the read failed", async () => {
    const flow = makeFlow({ partitions: [row(0, sync(100n, 130n)), row(1, sync(100n, 130n))] });
    const history = new Map([[key(0), interleaved], [key(1), interleaved]]);
    const reader = createOffsetReader(
      {
        "east.orders/0": { "100": fetched([record(101n, "order 100")], 1), "130": fetched([record(130n, "order 100")]) },
        "east.orders/1": { "100": { error: "NOT_LEADER_OR_FOLLOWER" }, "130": fetched([record(130n, "order 100")]) },
      },
      [],
    );
    const untrusted = new Map<string, string>();
    const { found } = await checkSyncStepWriters([flow], new Map([["west", reader]]), history, new Map(), untrusted);
    expect([...found, ...untrusted.keys()]).toEqual([]);
  });
});
