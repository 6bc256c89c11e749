import { describe, expect, it } from "vitest";
import { ledgerKey, type FlowPartition, type LedgerSegment, type TransactionLedgerView } from "@/lib/collector/types";
import { FindingType } from "@/lib/detect/types";
import { findingsOf, makeConnect, makeConnector, makeFlowPartition, makeSnapshot, runCycles, type SnapshotOverrides } from "./fixtures";

const aborted = (first: bigint, last: bigint, records = last - first + 1n): LedgerSegment => ({ kind: "aborted", first, last, records });

/** A ledger of east's orders/<partition> read from 0 to `cursor`, with the given aborted ranges. */
const ledger = (partition: number, cursor: bigint, ranges: LedgerSegment[]): TransactionLedgerView => ({
  cluster: "east",
  topic: "orders",
  partition,
  readFrom: 0n,
  cursor,
  logEnd: cursor,
  aborted: ranges,
  windowFrom: 0n,
  window: [],
});

const row = (partition: number, mm2Position: bigint, overrides: Partial<FlowPartition> = {}) =>
  makeFlowPartition({ partition, sourceLogEnd: 40n, mm2Position, transactionMarkersSeen: true, ...overrides });

/** Two partitions of orders: 0 with aborted 6–8 and 17–18 (MM2 at 19), 1 with aborted 6–8 and 30–31 (MM2 at 31). */
function snapshot(overrides: SnapshotOverrides = {}, rows = [row(0, 19n), row(1, 31n)], ledgers = [ledger(0, 20n, [aborted(6n, 8n), aborted(17n, 18n)]), ledger(1, 40n, [aborted(6n, 8n), aborted(30n, 31n)])]) {
  return makeSnapshot({
    partitions: rows,
    transactionLedgers: Object.fromEntries(ledgers.map((l) => [ledgerKey("east", "orders", l.partition), l])),
    ...overrides,
  });
}

const run = (...snapshots: ReturnType<typeof snapshot>[]) => runCycles(snapshots.map((s, i) => ({ snapshot: { ...s, cycle: i + 1, takenAt: s.takenAt + i * 10_000 } })));

describe("ABORTED_RECORDS_COPIED", () => {
  it("counts the aborted records below MM2's position per topic, with partitions and source ranges, as one warning", () => {
    const [out] = run(snapshot());
    const findings = findingsOf(out, FindingType.ABORTED_RECORDS_COPIED);
    expect(findings.map((f) => [f.key, f.severity, f.cluster, f.topic, f.partition])).toEqual([["ABORTED_RECORDS_COPIED|east->west|orders", "warning", "west", "orders", undefined]]);
    // Partition 1: MM2 at 31 passed 30 but not 31 (a dense range is cut at the position).
    expect(findings[0]!.evidence).toEqual({ abortedRecordsCopied: "9", partitions: "0,1", sourceOffsets: "0: 6–8, 17–18; 1: 6–8, 30", targetTopic: "east.orders", ledgerBehind: false });
    expect(findings[0]!.summary).toBe(
      "MM2 copied 9 records of aborted transactions from orders to west (source offsets 0: 6–8, 17–18; 1: 6–8, 30): " +
        "every consumer of east.orders reads them as ordinary records (KAFKA-14021)",
    );
  });

  it("counts only up to the ledger's cursor and says the ledger is behind MM2", () => {
    const [out] = run(snapshot({}, [row(0, 19n)], [ledger(0, 10n, [aborted(6n, 8n)])]));
    expect(findingsOf(out, FindingType.ABORTED_RECORDS_COPIED).map((f) => [f.evidence.abortedRecordsCopied, f.evidence.ledgerBehind])).toEqual([["3", true]]);
  });

  it("does not count a merged range with fewer records than offsets that straddles the position", () => {
    const [out] = run(snapshot({}, [row(0, 19n)], [ledger(0, 40n, [aborted(6n, 8n), aborted(15n, 25n, 4n)])]));
    expect(findingsOf(out, FindingType.ABORTED_RECORDS_COPIED).map((f) => f.evidence.sourceOffsets)).toEqual(["0: 6–8"]);
  });

  it("stays quiet when MM2's source consumer reads committed (exactly-once MM2), follows source.consumer.* over consumer.*", () => {
    const withConfig = (config: Record<string, string>) => run(snapshot({ connect: [makeConnect([makeConnector({ config })])] }))[0];
    expect(findingsOf(withConfig({ "consumer.isolation.level": "read_committed", "exactly.once.support": "required" }), FindingType.ABORTED_RECORDS_COPIED)).toEqual([]);
    expect(findingsOf(withConfig({ "source.consumer.isolation.level": "READ_COMMITTED" }), FindingType.ABORTED_RECORDS_COPIED)).toEqual([]);
    const overridden = withConfig({ "consumer.isolation.level": "read_committed", "source.consumer.isolation.level": "read_uncommitted" });
    expect(findingsOf(overridden, FindingType.ABORTED_RECORDS_COPIED).map((f) => f.evidence.abortedRecordsCopied)).toEqual(["9"]);
  });

  it("stays quiet without the connector's config (dedicated MM2, Connect unreachable) and without aborted records passed", () => {
    expect(findingsOf(run(snapshot({}, [row(0, 19n, { sourceConnector: null })]))[0], FindingType.ABORTED_RECORDS_COPIED)).toEqual([]);
    expect(findingsOf(run(snapshot({}, [row(0, 6n), row(1, 6n)]))[0], FindingType.ABORTED_RECORDS_COPIED)).toEqual([]);
    expect(findingsOf(run(snapshot({ transactionLedgers: undefined }))[0], FindingType.ABORTED_RECORDS_COPIED)).toEqual([]);
  });

  it("carries last cycle's finding while a partition of the topic is unknown, and resolves once the log start took the ranges", () => {
    const unknown = row(1, 31n, { unknown: { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: null } });
    const pruned = [ledger(0, 20n, []), ledger(1, 40n, [])];
    const outs = run(snapshot(), snapshot({}, [row(0, 19n), unknown], pruned), snapshot({}, [row(0, 19n), row(1, 31n)], pruned));
    expect(outs.map((o) => findingsOf(o, FindingType.ABORTED_RECORDS_COPIED).map((f) => f.evidence.abortedRecordsCopied))).toEqual([["9"], ["9"], []]);
  });
});
