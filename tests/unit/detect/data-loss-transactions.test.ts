import { describe, expect, it } from "vitest";
import { ledgerKey, type LedgerSegment, type TransactionLedgerView } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeFlowPartition, makeHistory, makeSnapshot, runCycles } from "./fixtures";

const seg = (kind: LedgerSegment["kind"], first: bigint, last: bigint, records = last - first + 1n): LedgerSegment => ({ kind, first, last, records });

/**
 * orders/2 as the ledger read it before the purge: 100–219 committed in 5 transactions of 24
 * (markers after each), an aborted transaction of 5 with its marker: 100–123 data, 124 marker, …
 */
function ledger(cursor: bigint, window: LedgerSegment[], windowFrom = 100n): TransactionLedgerView {
  return { cluster: "east", topic: "orders", partition: 2, readFrom: 0n, cursor, logEnd: cursor, aborted: window.filter((s) => s.kind === "aborted"), windowFrom, window };
}
const transactions: LedgerSegment[] = [
  ...[0n, 1n, 2n, 3n, 4n].flatMap((i) => [seg("data", 100n + i * 25n, 123n + i * 25n), seg("marker", 124n + i * 25n, 124n + i * 25n)]),
  seg("aborted", 225n, 229n),
  seg("marker", 230n, 230n),
];

/** MM2 at 100 while the purge moves the log start to `logStart`: one loss [100, logStart − 1], seen behind the log start. */
function lossWith(view: TransactionLedgerView | undefined, logStart: bigint, transactionMarkersSeen = true) {
  const before = makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 231n, mm2Position: 100n, transactionMarkersSeen });
  const purged = { ...before, sourceLogStart: logStart, sourceLogEnd: 231n };
  const transactionLedgers = view === undefined ? undefined : { [ledgerKey("east", "orders", 2)]: view };
  const [, second] = runCycles([
    { snapshot: makeSnapshot({ cycle: 1, partitions: [before], transactionLedgers }) },
    { snapshot: makeSnapshot({ cycle: 2, partitions: [purged], transactionLedgers }) },
  ]);
  return findingsOf(second, FindingType.DATA_LOSS);
}

describe("DATA_LOSS on a transactional partition the ledger had read", () => {
  it("gives the exact number of committed records, aborted records and markers lost", () => {
    const [loss] = lossWith(ledger(231n, transactions), 231n);
    expect(loss!.summary).toBe("Offsets 100–230 of orders/2 were deleted at east before MM2 copied them: 120 committed records, 5 aborted, 6 transaction markers");
    expect(loss!.evidence).toMatchObject({
      firstLostOffset: "100",
      lastLostOffset: "230",
      lostCount: "131",
      lostCountIncludesMarkers: true,
      lostCommittedRecords: "120",
      lostAbortedRecords: "5",
      lostMarkers: "6",
      lostUnknownOffsets: "",
    });
  });

  it("cuts a dense segment at the new log start", () => {
    const [loss] = lossWith(ledger(231n, transactions), 110n);
    expect([loss!.evidence.lostCommittedRecords, loss!.evidence.lostAbortedRecords, loss!.evidence.lostMarkers, loss!.evidence.lostUnknownOffsets]).toEqual(["10", "0", "0", ""]);
  });

  it("says exactly which offsets the ledger had not read", () => {
    // The ledger read up to 200 (cursor) and had forgotten nothing; 200–230 were deleted unread.
    const [loss] = lossWith(ledger(200n, transactions.filter((s) => s.last < 200n)), 231n);
    expect(loss!.summary).toBe(
      "Offsets 100–230 of orders/2 were deleted at east before MM2 copied them: 96 committed records, 0 aborted, 4 transaction markers, " +
        "and offsets 200–230 unknown (Gapwatch had not read them before they were deleted)",
    );
    expect(loss!.evidence.lostUnknownOffsets).toBe("200–230");
  });

  it("keeps the offset count without a ledger, and ignores a ledger on a partition without markers", () => {
    expect(lossWith(undefined, 231n).map((f) => [f.summary, f.evidence.lostCommittedRecords])).toEqual([
      ["At most 131 offsets (records and transaction markers) of orders/2 were deleted at east before MM2 copied them (offsets 100–230; possibly fewer)", null],
    ]);
    expect(lossWith(ledger(231n, transactions), 231n, false).map((f) => [f.summary, f.evidence.lostCommittedRecords])).toEqual([
      ["At most 131 records of orders/2 were deleted at east before MM2 copied them (offsets 100–230; possibly fewer)", null],
    ]);
  });
});

describe("DATA_LOSS told from markers by the ledger", () => {
  /** orders/2 after the log start moved to 1006: MM2 at 1010, the newest sync `to`, the ledger's window from 990. */
  function gapLoss(to: [number, number], window: LedgerSegment[] | null) {
    const after = makeFlowPartition({ sourceLogStart: 1006n, sourceLogEnd: 1010n, mm2Position: 1010n, targetLogEnd: 1004n, transactionMarkersSeen: true, latestSync: { upstream: BigInt(to[0]), downstream: BigInt(to[1]) } });
    const transactionLedgers = window === null ? undefined : { [ledgerKey("east", "orders", 2)]: ledger(1010n, window, 990n) };
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, transactionLedgers }), history: makeHistory([[999, 999]]) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [after], transactionLedgers }), history: makeHistory([[999, 999], to]) },
    ]);
    return findingsOf(second, FindingType.DATA_LOSS).map((f) => [f.evidence.firstLostOffset, f.evidence.lastLostOffset, f.evidence.lostCommittedRecords, f.evidence.lostMarkers]);
  }

  it("reports a one-record gap the ledger read as data (a step of ≤ 2 offsets is otherwise taken for markers)", () => {
    const window = [seg("data", 990n, 1000n), seg("marker", 1001n, 1001n), seg("data", 1002n, 1009n)];
    expect(gapLoss([1001, 1000], window)).toEqual([["1000", "1000", "1", "0"]]);
    expect(gapLoss([1001, 1000], null)).toEqual([]);
  });

  it("stays quiet on a gap of 4 offsets the ledger read as markers (four transactions ending back to back)", () => {
    const window = [seg("data", 990n, 999n), seg("marker", 1000n, 1003n), seg("data", 1004n, 1009n)];
    expect(gapLoss([1004, 1000], window)).toEqual([]);
    expect(gapLoss([1004, 1000], null)).toEqual([["1000", "1003", null, null]]);
  });

  it("stays quiet when the log start passes MM2's position by trailing markers only", () => {
    const markersOnly = ledger(231n, transactions);
    const before = makeFlowPartition({ sourceLogStart: 0n, sourceLogEnd: 231n, mm2Position: 230n, transactionMarkersSeen: true });
    const [, second] = runCycles([
      { snapshot: makeSnapshot({ cycle: 1, partitions: [before], transactionLedgers: { [ledgerKey("east", "orders", 2)]: markersOnly } }) },
      { snapshot: makeSnapshot({ cycle: 2, partitions: [{ ...before, sourceLogStart: 231n }], transactionLedgers: { [ledgerKey("east", "orders", 2)]: markersOnly } }) },
    ]);
    expect(findingsOf(second, FindingType.DATA_LOSS)).toEqual([]);
  });
});
