import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLedgers } from "@/lib/collector/transaction-ledger";
import { ledgerKey, type Snapshot } from "@/lib/collector/types";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { runLag, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen } from "../support/runtime";

/**
 * Aborted transactions copied by MM2 outside exactly-once mode (KAFKA-14021), and a purge of a
 * transactional partition counted record by record. A kafkajs transactional producer commits and
 * aborts known transactions (a plain producer writes one record inside an aborted transaction on
 * partition 0); Gapwatch's transaction ledger classifies them with read_committed Fetches.
 * Ground truth: the target's contents read with Kafka's ConsoleConsumer (the aborted values are on
 * the target), and before the purge the source read the same way (read_uncommitted: every data
 * record; the offsets it does not return are the markers).
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const runtime = createSandboxRuntime(state, 5);
const topic = `aborttest-${randomUUID().slice(0, 8)}`;
const remote = `east.${topic}`;
const partitions = [0, 1];

interface Value {
  tx: string;
  aborted: boolean;
  seq: number;
}

const rowsOf = (s: Snapshot) => s.flows[0]!.partitions.filter((p) => p.topic === topic);
const describeRows = (s: Snapshot) =>
  JSON.stringify({ rows: rowsOf(s), ledgers: partitions.map((p) => s.transactionLedgers?.[ledgerKey("east", topic, p)]) }, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 45_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeRows });
const alertsOn = (type?: string) => runtime.alerts.list({}).filter((a) => a.topic === topic && (type === undefined || a.type === type));

/** One transaction of `count` records per listed partition; a plain record on `plainPartition` while it is open. */
async function runTransactions(plan: { tx: string; count: number; abort: boolean; on: number[]; plainPartition?: number }[], id: string): Promise<void> {
  const kafka = sandboxKafka(east);
  const producer = kafka.producer({ transactionalId: `gapwatch-${topic}-${id}`, idempotent: true, maxInFlightRequests: 1 });
  const plain = kafka.producer();
  await Promise.all([producer.connect(), plain.connect()]);
  try {
    for (const t of plan) {
      const transaction = await producer.transaction();
      const value = (seq: number): string => JSON.stringify({ tx: t.tx, aborted: t.abort, seq } satisfies Value);
      await transaction.send({ topic, acks: -1, messages: t.on.flatMap((partition) => Array.from({ length: t.count }, (_, seq) => ({ partition, value: value(seq) }))) });
      if (t.plainPartition !== undefined) await plain.send({ topic, acks: -1, messages: [{ partition: t.plainPartition, value: JSON.stringify({ tx: "plain", aborted: false, seq: 0 } satisfies Value) }] });
      await (t.abort ? transaction.abort() : transaction.commit());
    }
  } finally {
    await Promise.all([producer.disconnect(), plain.disconnect()]);
  }
}

async function waitForLogEnd(partition: number, end: bigint): Promise<void> {
  const deadline = Date.now() + 30_000;
  // The coordinator writes the markers after EndTxn answers (WriteTxnMarkers).
  while ((await fetchLogEnds(east, topic)).get(partition)!.high < end) {
    if (Date.now() > deadline) throw new Error(`${topic}/${partition} did not reach ${end}`);
    await sleep(300);
  }
}

const parse = (value: string) => JSON.parse(value) as Value;

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: partitions.length }]);
  // Per partition: T1 commit 5 (0–4, marker 5), T2 abort 3 (6–8; on 0 a plain record at 9), T3
  // commit 5, T4 abort 2. Partition 0: 20 offsets, 16 data (aborted 6–8, 17–18); partition 1: 19
  // offsets, 15 data (aborted 6–8, 16–17).
  await runTransactions(
    [
      { tx: "T1", count: 5, abort: false, on: partitions },
      { tx: "T2", count: 3, abort: true, on: partitions, plainPartition: 0 },
      { tx: "T3", count: 5, abort: false, on: partitions },
      { tx: "T4", count: 2, abort: true, on: partitions },
    ],
    "main",
  );
  await waitForLogEnd(0, 20n);
  await waitForLogEnd(1, 19n);
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("aborted transactions on a source topic, MM2 reading uncommitted", () => {
  it("ABORTED_RECORDS_COPIED counts exactly the aborted records the target holds, and nothing else fires", { timeout: 80_000 }, async () => {
    await cycleUntil((s) => rowsOf(s).length === 2 && rowsOf(s).every((p) => p.targetLogEnd === (p.partition === 0 ? 16n : 15n)), `${topic} copied`);
    const onTarget = await Promise.all(partitions.map((p) => readPartition(state, west, remote, p, 0n, 16)));
    const abortedOnTarget = onTarget.map((records) => records.filter((r) => parse(r.value).aborted).length);
    expect(abortedOnTarget).toEqual([5, 5]);
    expect(onTarget.map((records) => records.length)).toEqual([16, 15]);

    const snapshot = await cycleUntil((s) => alertsOn("ABORTED_RECORDS_COPIED").length === 1 && s.transactionLedgers?.[ledgerKey("east", topic, 1)]?.cursor === 19n, "ABORTED_RECORDS_COPIED");
    const [alert] = alertsOn("ABORTED_RECORDS_COPIED");
    expect([alert!.severity, alert!.flow, alert!.cluster, alert!.partition]).toEqual(["warning", "east->west", "west", null]);
    expect(alert!.evidence).toMatchObject({ abortedRecordsCopied: "10", partitions: "0,1", sourceOffsets: "0: 6–8, 17–18; 1: 6–8, 16–17", targetTopic: remote, ledgerBehind: false });
    expect(alert!.summary).toBe(
      `MM2 copied 10 records of aborted transactions from ${topic} to west (source offsets 0: 6–8, 17–18; 1: 6–8, 16–17): ` +
        `every consumer of ${remote} reads them as ordinary records (KAFKA-14021)`,
    );
    const ledger = snapshot.transactionLedgers![ledgerKey("east", topic, 0)]!;
    expect([ledger.readFrom, ledger.cursor, ledger.logEnd]).toEqual([0n, 20n, 20n]);
    expect(alertsOn().map((a) => a.type)).toEqual(["ABORTED_RECORDS_COPIED"]);
    // Persisted in the store every cycle: a restart continues from the cursor with the aborted ranges it knew.
    const stored = parseLedgers(await runtime.store.getValue("transaction-ledger")).ledgers.filter((l) => l.topic === topic).sort((a, b) => a.partition - b.partition);
    expect(stored.map((l) => [l.partition, l.cursor, l.aborted.map((a) => `${a.first}-${a.last}`).join(",")])).toEqual([
      [0, 20n, "6-8,17-18"],
      [1, 19n, "6-8,16-17"],
    ]);
  });

  it("a purge while MM2 is paused: DATA_LOSS with the exact committed / aborted / marker split", { timeout: 80_000 }, async () => {
    await runLag(state, { seconds: 0 });
    try {
      // MM2 stopped at T4's abort marker (19): it had copied every data record before it.
      const position = rowsOf(await runtime.collector.runCycle()).find((p) => p.partition === 0)!.mm2Position;
      expect(position).toBe(19n);
      // On partition 0 only: T5 commit 4 (20–23, marker 24), T6 abort 3 (25–27, marker 28), T7 commit 2 (29–30, marker 31).
      await runTransactions(
        [
          { tx: "T5", count: 4, abort: false, on: [0] },
          { tx: "T6", count: 3, abort: true, on: [0] },
          { tx: "T7", count: 2, abort: false, on: [0] },
        ],
        "purge",
      );
      await waitForLogEnd(0, 32n);
      // Request floor: the ledger reads partition 0's 12 new offsets in one cycle with ONE extra Fetch on east's broker
      // (besides the unreplicated-tail Fetch and at most one of the offset-syncs topic).
      runtime.collector.resetRequestCounts();
      const read = await runtime.collector.runCycle();
      expect(read.transactionLedgers?.[ledgerKey("east", topic, 0)]?.cursor).toBe(32n);
      const fetches = runtime.collector.readRequestCounts().east!.filter((c) => c.api === "Fetch");
      process.stdout.write(`[requests] east Fetch: ${fetches.map((c) => `${c.broker}=${c.count}`).join(" ")}\n`);
      for (const c of fetches) expect(c.count, `Fetch requests to east broker ${c.broker}`).toBeLessThanOrEqual(3);
      // Ground truth before the purge: every data record from MM2's position (19) on; the other offsets are markers.
      const truth = (await readPartition(state, east, topic, 0, 19n, 100)).map((r) => parse(r.value));
      const committed = truth.filter((r) => !r.aborted).length;
      const aborted = truth.filter((r) => r.aborted).length;
      expect([committed, aborted, 13 - truth.length]).toEqual([6, 3, 4]);

      const admin = sandboxKafka(east).admin();
      await admin.connect();
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: "32" }] });
      await admin.disconnect();
      expect((await fetchLogEnds(east, topic)).get(0)).toEqual({ low: 32n, high: 32n });

      await cycleUntil(() => alertsOn("DATA_LOSS").length > 0, `DATA_LOSS on ${topic}/0`);
      const [loss] = alertsOn("DATA_LOSS");
      expect(loss!.evidence).toMatchObject({
        firstLostOffset: "19",
        lastLostOffset: "31",
        lostCount: "13",
        lostCommittedRecords: String(committed),
        lostAbortedRecords: String(aborted),
        lostMarkers: "4",
        lostUnknownOffsets: "",
      });
      expect(loss!.summary).toBe(`Offsets 19–31 of ${topic}/0 were deleted at east before MM2 copied them: 6 committed records, 3 aborted, 4 transaction markers`);
      // The aborted records of partition 0 that MM2 copied are below the new log start: only partition 1's remain counted.
      await cycleUntil(() => alertsOn("ABORTED_RECORDS_COPIED")[0]?.evidence.abortedRecordsCopied === "5", "ABORTED_RECORDS_COPIED to follow the log start");
      expect(alertsOn().map((a) => a.type).sort()).toEqual(["ABORTED_RECORDS_COPIED", "DATA_LOSS"]);
    } finally {
      await runResume(state);
    }
  });
});
