import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readPartition, runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { fetchLogEnds, sandboxKafka } from "@/lib/sandbox/topics";

/** Waits until `check` returns a value (not undefined), polling every second. */
async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(1000);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

describe("the sandbox replicates east -> west with real MirrorMaker 2", () => {
  const state = readSandboxState();
  const east = state.clusters.east!.bootstrap;
  const west = state.clusters.west!.bootstrap;

  it("copies every record produced to east/orders into west/east.orders exactly once", async () => {
    const run = randomUUID();
    const perPartition = 100;
    const producer = sandboxKafka(east).producer();
    await producer.connect();
    const messages = [];
    for (let partition = 0; partition < 6; partition++) {
      for (let seq = 0; seq < perPartition; seq++) messages.push({ partition, value: JSON.stringify({ topic: "orders", partition, seq, run }) });
    }
    await producer.send({ topic: "orders", acks: -1, messages });
    await producer.disconnect();

    const source = await fetchLogEnds(east, "orders");
    await waitFor(async () => {
      const target = await fetchLogEnds(west, "east.orders").catch(() => null);
      if (!target) return undefined;
      return [...source].every(([p, o]) => target.get(p)?.high === o.high) ? true : undefined;
    }, "west/east.orders to reach east/orders' log end offsets");

    const target = await fetchLogEnds(west, "east.orders");
    const sourceTotal = [...source.values()].reduce((s, o) => s + o.high, 0n);
    const targetTotal = [...target.values()].reduce((s, o) => s + o.high, 0n);
    expect(targetTotal).toBe(sourceTotal);

    // Every sequence number of this run, per partition, is on the target exactly once.
    for (let partition = 0; partition < 6; partition++) {
      const end = target.get(partition)!.high;
      const records = await readPartition(state, west, "east.orders", partition, end - BigInt(perPartition), perPartition);
      const seqs = records.map((r) => JSON.parse(r.value) as { seq: number; run: string; partition: number }).filter((v) => v.run === run);
      expect(seqs.map((v) => v.partition).every((p) => p === partition)).toBe(true);
      expect(seqs.map((v) => v.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: perPartition }, (_, i) => i));
    }
  });

  it("emits a checkpoint for a lagging consumer group, translating its committed offsets", async () => {
    const group = `it-lagging-${randomUUID().slice(0, 8)}`;
    const admin = sandboxKafka(east).admin();
    await admin.connect();
    // A group that has read only the first 40 records of each orders partition: far behind.
    await admin.setOffsets({ groupId: group, topic: "orders", partitions: Array.from({ length: 6 }, (_, partition) => ({ partition, offset: "40" })) });
    await admin.disconnect();

    // Read the checkpoints topic with Kafka's own CheckpointFormatter (independent of Gapwatch's decoder).
    const lines = await waitFor(async () => {
      const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
        "--bootstrap-server", west, "--topic", "east.checkpoints.internal", "--from-beginning", "--timeout-ms", "5000",
        "--formatter", "org.apache.kafka.connect.mirror.formatters.CheckpointFormatter",
      ]).catch(() => "");
      const mine = out.split("\n").filter((l) => l.includes(`consumerGroupId=${group},`));
      return new Set(mine.map((l) => /topicPartition=east\.orders-(\d+)/.exec(l)?.[1])).size >= 6 ? mine : undefined;
    }, `checkpoints for ${group}`, 120_000);
    for (const line of lines) {
      expect(line).toMatch(/topicPartition=east\.orders-[0-5],/);
      expect(line).toMatch(/upstreamOffset=40\b/);
    }
  });
});
