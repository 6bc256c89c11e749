import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlowPartition, Snapshot } from "@/lib/collector/types";
import { readPartition } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { runLag, runResume } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics, fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";
import { createSandboxRuntime, cycleUntil as cycleUntilSeen } from "../support/runtime";

/**
 * A transactional producer, then idle: every transaction leaves a commit or abort marker that
 * takes an offset, which MM2 never copies. Gapwatch must show lag 0 (data records), not 1 (the
 * marker at the log end), and must never call the idle partitions stalled. MM2 outside
 * exactly-once mode reads uncommitted, so the aborted records are copied too (KAFKA-14021).
 * Ground truth: log ends read with kafkajs, target contents with Kafka's ConsoleConsumer.
 */
const state = readSandboxState();
const east = state.clusters.east!.bootstrap;
const west = state.clusters.west!.bootstrap;
const stallAfterMs = 15_000;
const runtime = createSandboxRuntime(state, 5, { stallAfterMs });
const topic = `txtest-${randomUUID().slice(0, 8)}`;
const partitions = [0, 1];
const committedTransactions = 5;
const recordsPerTransaction = 10;
const abortedRecords = 5;

const rowsOf = (s: Snapshot) => s.flows[0]!.partitions.filter((p) => p.topic === topic);

const describeRows = (s: Snapshot) => JSON.stringify(rowsOf(s), (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
const cycleUntil = (check: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000) => cycleUntilSeen(runtime.collector, check, what, { timeoutMs, describe: describeRows });

async function produceTransactions(): Promise<void> {
  const producer = sandboxKafka(east).producer({ transactionalId: `gapwatch-${topic}`, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const batch = (tx: number, count: number) => partitions.flatMap((partition) => Array.from({ length: count }, (_, seq) => ({ partition, value: JSON.stringify({ topic, partition, tx, seq }) })));
    for (let tx = 0; tx < committedTransactions; tx++) {
      const transaction = await producer.transaction();
      await transaction.send({ topic, acks: -1, messages: batch(tx, recordsPerTransaction) });
      await transaction.commit();
    }
    const aborted = await producer.transaction();
    await aborted.send({ topic, acks: -1, messages: batch(committedTransactions, abortedRecords) });
    await aborted.abort();
  } finally {
    await producer.disconnect();
  }
}

async function waitForLogEnds(bootstrap: string, name: string, end: bigint): Promise<Map<number, { low: bigint; high: bigint }>> {
  const deadline = Date.now() + 30_000;
  let ends = await fetchLogEnds(bootstrap, name);
  while ([...ends.values()].some((e) => e.high < end) && Date.now() < deadline) {
    await sleep(500);
    ends = await fetchLogEnds(bootstrap, name);
  }
  return ends;
}

beforeAll(async () => {
  await ensureTopics(east, [{ topic, partitions: partitions.length }]);
  await produceTransactions();
});

afterAll(async () => {
  await runtime.collector.stop();
  runtime.alerts.stop();
  await runtime.store.close();
});

describe("a transactional topic, then idle", () => {
  it("shows lag 0 in data records while its log ends with a marker, and raises nothing past the stall threshold", { timeout: 150_000 }, async () => {
    const copied = committedTransactions * recordsPerTransaction + abortedRecords;
    const markers = committedTransactions + 1;
    // The coordinator writes the markers after EndTxn answers (WriteTxnMarkers): wait for the last one.
    const source = await waitForLogEnds(east, topic, BigInt(copied + markers));
    for (const p of partitions) expect(source.get(p)!.high).toBe(BigInt(copied + markers));
    // Copied, and MM2's position known: its offset syncs (written asynchronously) or Connect's flush.
    const settled = (p: FlowPartition) => p.targetLogEnd === BigInt(copied) && p.mm2Position === BigInt(copied + markers - 1);
    await cycleUntil((s) => rowsOf(s).length === partitions.length && rowsOf(s).every(settled), `${topic} copied, MM2's position known`);

    // MM2 copied the aborted records as ordinary records: the target holds all 55 values once.
    const target = await fetchLogEnds(west, `east.${topic}`);
    const values = await readPartition(state, west, `east.${topic}`, 0, 0n, copied);
    expect(target.get(0)!.high).toBe(BigInt(copied));
    expect(new Set(values.map((r) => r.value)).size).toBe(copied);

    const started = Date.now();
    let snapshot = await runtime.collector.runCycle();
    while (Date.now() - started < stallAfterMs + 8000) {
      for (const row of rowsOf(snapshot)) {
        expect([row.partition, row.lag, row.lagBasis, row.offsetLag, row.mm2Position, row.transactionMarkersSeen]).toEqual([
          row.partition,
          0n,
          "records",
          1n,
          BigInt(copied + markers - 1),
          true,
        ]);
      }
      await sleep(2000);
      snapshot = await runtime.collector.runCycle();
    }
    // The one warning: the aborted records MM2 copied (KAFKA-14021), 5 per partition.
    const raised = runtime.alerts.list({}).filter((a) => a.topic === topic || a.type === "TASK_STALLED");
    expect(raised.map((a) => [a.type, a.evidence.abortedRecordsCopied])).toEqual([["ABORTED_RECORDS_COPIED", String(abortedRecords * partitions.length)]]);
  });

  it("a purge on the transactional topic while MM2 is paused: DATA_LOSS with the exact offset range, marked as counting markers", { timeout: 120_000 }, async () => {
    const copied = BigInt(committedTransactions * recordsPerTransaction + abortedRecords);
    const before = (await fetchLogEnds(east, topic)).get(0)!.high;
    await runLag(state, { seconds: 0 });
    try {
      const producer = sandboxKafka(east).producer({ transactionalId: `gapwatch-${topic}-purge`, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      for (let tx = 0; tx < 2; tx++) {
        const transaction = await producer.transaction();
        await transaction.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, seq) => ({ partition: 0, value: JSON.stringify({ topic, purge: tx, seq }) })) });
        await transaction.commit();
      }
      await producer.disconnect();
      const end = before + 22n; // 2 × (10 records + 1 commit marker)
      await waitForLogEnds(east, topic, end);
      const admin = sandboxKafka(east).admin();
      await admin.connect();
      // kafkajs' deleteTopicRecords looks up leaders without loading the topic's metadata first.
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: end.toString() }] });
      await admin.disconnect();
      expect((await fetchLogEnds(east, topic)).get(0)).toEqual({ low: end, high: end });
      await cycleUntil(() => runtime.alerts.list({ type: "DATA_LOSS" }).some((a) => a.topic === topic), `DATA_LOSS on ${topic}/0`);
      // MM2 had copied every data record before the old log end (its position is the abort marker's offset).
      const loss = runtime.alerts.list({ type: "DATA_LOSS" }).filter((a) => a.topic === topic);
      const first = before - 1n;
      expect(loss.map((a) => [a.partition, a.evidence.firstLostOffset, a.evidence.lastLostOffset, a.evidence.lostCount, a.evidence.lostCountIncludesMarkers])).toEqual([
        [0, first.toString(), (end - 1n).toString(), (end - first).toString(), true],
      ]);
      // The transaction ledger had read up to the old log end: the abort marker there is known, the rest was deleted unread.
      expect([loss[0]!.evidence.lostCommittedRecords, loss[0]!.evidence.lostAbortedRecords, loss[0]!.evidence.lostMarkers, loss[0]!.evidence.lostUnknownOffsets]).toEqual([
        "0",
        "0",
        "1",
        `${before}–${end - 1n}`,
      ]);
      expect((await fetchLogEnds(west, `east.${topic}`)).get(0)!.high).toBe(copied);
    } finally {
      await runResume(state);
    }
  });
});
