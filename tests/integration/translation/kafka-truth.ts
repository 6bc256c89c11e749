/**
 * Independent truth for the translation integration test: MM2's internal topics and the workload's
 * records read with Kafka's own ConsoleConsumer (and Kafka's formatters), and a consumer on the
 * target that starts from a failover plan (kafkajs, never the code under test).
 */
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import type { SandboxState } from "@/lib/sandbox/state";
import { sandboxKafka } from "@/lib/sandbox/topics";
import { parseWorkloadRecord } from "@/lib/sandbox/workload";

const consoleConsumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";

/** A record of partition 0 of an MM2 internal topic with its CreateTime. */
export interface Timed<T> {
  offset: bigint;
  timestamp: number;
  value: T;
}

/** An offset sync as Kafka's OffsetSyncFormatter prints it. */
export interface SyncRecord {
  topic: string;
  partition: number;
  upstream: bigint;
  downstream: bigint;
}

/** A checkpoint as Kafka's CheckpointFormatter prints it (`topic` is the renamed target topic). */
export interface CheckpointRecord {
  group: string;
  topic: string;
  partition: number;
  upstream: bigint;
  downstream: bigint;
}

/**
 * The console consumer ends at `count` records; `--timeout-ms` only ends a read that receives nothing that long. On a
 * loaded machine a JVM's first fetch took over 10 s once (the read returned no record), so it waits 30 s: a read that
 * completes never waits for it.
 */
function partitionArgs(bootstrap: string, topic: string, from: bigint, count: number): string[] {
  return ["--bootstrap-server", bootstrap, "--topic", topic, "--partition", "0", "--offset", from.toString(), "--max-messages", String(count), "--timeout-ms", "30000"];
}

/**
 * Reads `count` records of partition 0 from `from` twice: once with Kafka's formatter (values),
 * once with the default formatter printing only offset and CreateTime; the two are zipped by offset order.
 */
async function readInternal<T>(state: SandboxState, bootstrap: string, topic: string, from: bigint, count: number, formatter: string, parse: (line: string) => T | null): Promise<Timed<T>[]> {
  if (count <= 0) return [];
  const [formatted, stamped] = await Promise.all([
    runKafkaTool(state, consoleConsumer, [...partitionArgs(bootstrap, topic, from, count), "--formatter", formatter]),
    runKafkaTool(state, consoleConsumer, [
      ...partitionArgs(bootstrap, topic, from, count),
      "--formatter-property", "print.timestamp=true", "--formatter-property", "print.offset=true", "--formatter-property", "print.value=false",
    ]),
  ]);
  const values = formatted.split("\n").map(parse).filter((v): v is T => v !== null);
  const stamps = stamped
    .split("\n")
    .map((line) => ({ ts: /CreateTime:(\d+)/.exec(line)?.[1], offset: /Offset:(\d+)/.exec(line)?.[1] }))
    .filter((s): s is { ts: string; offset: string } => s.ts !== undefined && s.offset !== undefined);
  if (values.length !== stamps.length) throw new Error(`${topic}: ${values.length} formatted records but ${stamps.length} timestamps`);
  if (values.length === 0) throw new Error(`${topic}: the console consumer read none of ${count} records from offset ${from} in 30 s`);
  return values.map((value, i) => ({ value, offset: BigInt(stamps[i]!.offset), timestamp: Number(stamps[i]!.ts) }));
}

/** Offset syncs from `from`, read with org.apache.kafka.connect.mirror.formatters.OffsetSyncFormatter. */
export function readOffsetSyncs(state: SandboxState, bootstrap: string, topic: string, from: bigint, count: number): Promise<Timed<SyncRecord>[]> {
  return readInternal(state, bootstrap, topic, from, count, "org.apache.kafka.connect.mirror.formatters.OffsetSyncFormatter", (line) => {
    const m = /topicPartition=(.+)-(\d+), upstreamOffset=(\d+), downstreamOffset=(\d+)/.exec(line);
    return m ? { topic: m[1]!, partition: Number(m[2]), upstream: BigInt(m[3]!), downstream: BigInt(m[4]!) } : null;
  });
}

/** Checkpoints from `from`, read with org.apache.kafka.connect.mirror.formatters.CheckpointFormatter. */
export function readCheckpoints(state: SandboxState, bootstrap: string, topic: string, from: bigint, count: number): Promise<Timed<CheckpointRecord>[]> {
  return readInternal(state, bootstrap, topic, from, count, "org.apache.kafka.connect.mirror.formatters.CheckpointFormatter", (line) => {
    const m = /consumerGroupId=(.*), topicPartition=(.+)-(\d+), upstreamOffset=(\d+), downstreamOffset=(\d+)/.exec(line);
    return m ? { group: m[1]!, topic: m[2]!, partition: Number(m[3]), upstream: BigInt(m[4]!), downstream: BigInt(m[5]!) } : null;
  });
}

/** Every workload record of a topic with its partition and offset (ConsoleConsumer, whole topic). */
export async function readWorkloadTopic(state: SandboxState, bootstrap: string, topic: string, count: number): Promise<{ partition: number; offset: bigint; seq: number; run: string }[]> {
  const out = await runKafkaTool(state, consoleConsumer, [
    "--bootstrap-server", bootstrap, "--topic", topic, "--from-beginning", "--max-messages", String(count), "--timeout-ms", "15000",
    "--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
  ], 120_000);
  return out.split("\n").flatMap((line) => {
    const partition = /Partition:(\d+)/.exec(line)?.[1];
    const offset = /Offset:(\d+)/.exec(line)?.[1];
    const record = parseWorkloadRecord(Buffer.from(line.slice(line.lastIndexOf("\t") + 1)));
    return partition !== undefined && offset !== undefined && record ? [{ partition: Number(partition), offset: BigInt(offset), seq: record.seq, run: record.run }] : [];
  });
}

/** What `kafka-consumer-groups --reset-offsets --from-file <csv> --dry-run` would set, per `topic/partition`. */
export async function dryRunReset(state: SandboxState, bootstrap: string, group: string, csvFile: string): Promise<Map<string, bigint>> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", [
    "--bootstrap-server", bootstrap, "--reset-offsets", "--from-file", csvFile, "--group", group, "--dry-run",
  ]);
  // Rows of GROUP TOPIC PARTITION NEW-OFFSET, read as one stream of columns: Kafka 3.9 prints them
  // without line breaks (ConsumerGroupCommand.printOffsetsToReset), padded to their widths.
  const words = out.trim().split(/\s+/);
  const rows = words.flatMap((w, i) => (w === group && /^\d+$/.test(words[i + 3] ?? "") ? [words.slice(i, i + 4)] : []));
  // Keyed by topic and partition: the group may hold offsets of other topics (the workload groups do).
  return new Map(rows.map((c) => [`${c[1]}/${c[2]}`, BigInt(c[3]!)]));
}

/**
 * Commits `offsets` for a fresh group on the target (admin.setOffsets), then consumes the topic
 * from there up to `ends` and returns the workload sequence numbers read, per partition.
 */
export async function consumeFromPlan(bootstrap: string, group: string, topic: string, offsets: Map<number, bigint>, ends: Map<number, bigint>): Promise<Map<number, { seq: number; run: string }[]>> {
  const kafka = sandboxKafka(bootstrap, "gapwatch-it-failover");
  const admin = kafka.admin();
  await admin.connect();
  await admin.setOffsets({ groupId: group, topic, partitions: [...offsets].map(([partition, offset]) => ({ partition, offset: offset.toString() })) });
  await admin.disconnect();
  const read = new Map<number, { seq: number; run: string }[]>([...offsets.keys()].map((p) => [p, []]));
  const remaining = new Set([...offsets].filter(([p, o]) => (ends.get(p) ?? 0n) > o).map(([p]) => p));
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10_000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: false });
  const done = new Promise<void>((resolve) => {
    if (remaining.size === 0) resolve();
    void consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const record = parseWorkloadRecord(message.value);
        if (record) read.get(partition)?.push({ seq: record.seq, run: record.run });
        if (BigInt(message.offset) + 1n >= (ends.get(partition) ?? 0n)) remaining.delete(partition);
        if (remaining.size === 0) resolve();
      },
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${group} did not reach the log ends in 60 s (left: ${[...remaining].join(",")})`)), 60_000);
  });
  try {
    await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return read;
}
