import { describe, expect, it } from "vitest";
import { ledgerKey, type TransactionLedgerView } from "@/lib/collector/types";
import { describeTransactionLedger, shapePartitionRows } from "@/lib/views/topic";
import { makeFlow, makeFlowPartition, makeSnapshot } from "../detect/fixtures";

const view = (cursor: bigint, logEnd: bigint): TransactionLedgerView => ({
  cluster: "east",
  topic: "orders",
  partition: 2,
  readFrom: 0n,
  cursor,
  logEnd,
  aborted: [
    { kind: "aborted", first: 6n, last: 8n, records: 3n },
    { kind: "aborted", first: 1200n, last: 1201n, records: 2n },
  ],
  windowFrom: 0n,
  window: [],
});

describe("describeTransactionLedger", () => {
  it("shows the aborted records MM2's position passed, and all of them in the tooltip", () => {
    expect(describeTransactionLedger(view(1300n, 1300n), 1000n)).toEqual({
      label: "3 aborted copied",
      detail:
        "Transaction ledger (read_committed from offset 0): offsets below 1,300 classified; 5 records of aborted transactions still in the " +
        "source log, 3 below MM2's position (MM2 reading uncommitted copies them, KAFKA-14021).",
    });
  });

  it("says when the ledger is behind the log end, and counts what it knows when MM2 passed none", () => {
    const note = describeTransactionLedger(view(1250n, 1400n), 5n);
    expect(note!.label).toBe("5 aborted · ledger behind");
    expect(note!.detail).toContain("Offsets 1,250–1,399 not classified yet (an open transaction, or still reading).");
    expect(describeTransactionLedger(undefined, 5n)).toBeNull();
  });

  it("puts the note on the partition's row of the topic page", () => {
    const flow = makeFlow({ partitions: [makeFlowPartition({ mm2Position: 1000n, transactionMarkersSeen: true })] });
    const snapshot = makeSnapshot({ flows: [flow], transactionLedgers: { [ledgerKey("east", "orders", 2)]: view(1300n, 1300n) } });
    expect(shapePartitionRows(snapshot, flow, "orders").map((r) => r.transactionNote?.label)).toEqual(["3 aborted copied"]);
  });
});
