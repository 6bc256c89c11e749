import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import type { Kafka } from "kafkajs";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import type { SandboxState } from "@/lib/sandbox/state";

/**
 * Ground truth for the lib/kafka integration tests: figures read with Kafka's own CLI tools (run
 * from the sandbox's jars) or kafkajs, never with the code under test.
 */

/** A topic or group name unique to this run. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/** Produces `count` records to one partition with kafkajs (values "<prefix>-<i>"). */
export async function produce(kafka: Kafka, topic: string, partition: number, count: number, prefix = "v"): Promise<void> {
  if (count === 0) return;
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({
      topic,
      messages: Array.from({ length: count }, (_, i) => ({ partition, key: `k${i}`, value: `${prefix}-${i}`, headers: { source: `h${i}` } })),
    });
  } finally {
    await producer.disconnect();
  }
}

/** Offsets at a special time (-2 earliest, -1 latest) per partition, from Kafka's GetOffsetShell. */
export async function getOffsetShell(state: SandboxState, bootstrap: string, topic: string, time: -1 | -2): Promise<Map<number, bigint>> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.GetOffsetShell", ["--bootstrap-server", bootstrap, "--topic", topic, "--time", String(time)]);
  const offsets = new Map<number, bigint>();
  for (const m of out.matchAll(/^(.+):(\d+):(-?\d+)$/gm)) if (m[1] === topic) offsets.set(Number(m[2]), BigInt(m[3]!));
  return offsets;
}

/** Committed offsets of a group, from Kafka's ConsumerGroupCommand --describe ("-" = none). */
export async function describeGroupOffsets(state: SandboxState, bootstrap: string, group: string): Promise<{ topic: string; partition: number; offset: bigint }[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", ["--bootstrap-server", bootstrap, "--describe", "--group", group]);
  const rows: { topic: string; partition: number; offset: bigint }[] = [];
  for (const line of out.split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (cols[0] === group && cols.length >= 4 && /^\d+$/.test(cols[3]!)) rows.push({ topic: cols[1]!, partition: Number(cols[2]), offset: BigInt(cols[3]!) });
  }
  return rows.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/**
 * The partitionLeaderEpoch of the newest batch of a partition, from Kafka's DumpLogSegments on the
 * broker's log directory: the leader epoch under which the leader appended it.
 */
export async function lastBatchLeaderEpoch(state: SandboxState, logDir: string, topic: string, partition: number): Promise<number> {
  const dir = path.join(logDir, `${topic}-${partition}`);
  const segment = readdirSync(dir).filter((f) => f.endsWith(".log")).sort().at(-1);
  if (!segment) throw new Error(`no log segment in ${dir}`);
  const out = await runKafkaTool(state, "org.apache.kafka.tools.DumpLogSegments", ["--files", path.join(dir, segment)]);
  const epochs = [...out.matchAll(/partitionLeaderEpoch: (-?\d+)/g)].map((m) => Number(m[1]));
  if (epochs.length === 0) throw new Error(`DumpLogSegments found no batch in ${segment}:\n${out}`);
  return epochs.at(-1)!;
}

/**
 * Deletes records below `offset` with Kafka's DeleteRecordsCommand (kafkajs's DeleteRecords
 * request versions are gone from Kafka 4.x brokers).
 */
export async function deleteRecords(state: SandboxState, bootstrap: string, topic: string, partition: number, offset: number): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gw-delete-records-"));
  const file = path.join(dir, "offsets.json");
  try {
    writeFileSync(file, JSON.stringify({ version: 1, partitions: [{ topic, partition, offset }] }));
    await runKafkaTool(state, "org.apache.kafka.tools.DeleteRecordsCommand", ["--bootstrap-server", bootstrap, "--offset-json-file", file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A TCP proxy in front of a broker that can swallow traffic (accept, never answer) or forward it. */
export interface SwitchableProxy {
  address: string;
  setMode(mode: "blackhole" | "forward"): void;
  close(): Promise<void>;
}

/** Starts a SwitchableProxy on loopback in "blackhole" mode. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(":")), Number(target.slice(target.lastIndexOf(":") + 1))];
  let mode: "blackhole" | "forward" = "blackhole";
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    if (mode === "blackhole") return;
    const upstream = net.connect(port, host);
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: ownPort } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${ownPort}`,
    setMode(next) {
      mode = next;
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
