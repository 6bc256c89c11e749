import type { FlowPartition, Snapshot } from "@/lib/collector/types";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { sleep } from "@/lib/sandbox/processes";
import type { SandboxState } from "@/lib/sandbox/state";
import { sandboxKafka } from "@/lib/sandbox/topics";

/** Helpers of the look-alike files: Kafka's own readings, a producer, and collector cycles. */

/** `topic/partition` -> offset from Kafka's GetOffsetShell (`time` -1: log end, -2: log start). */
export async function readOffsets(state: SandboxState, bootstrap: string, topic: string, time: "-1" | "-2"): Promise<Map<string, bigint>> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.GetOffsetShell", ["--bootstrap-server", bootstrap, "--topic", topic, "--time", time]);
  const offsets = new Map<string, bigint>();
  for (const m of out.matchAll(/^(.+):(\d+):(-?\d+)$/gm)) offsets.set(`${m[1]}/${m[2]}`, BigInt(m[3]!));
  return offsets;
}

/**
 * Produces exactly `counts[p]` records to each partition p (acks=all), values `<tag>-<partition>-<i>`: idempotent, so
 * a retried batch the broker had already appended is not appended twice.
 */
export async function produceCounts(bootstrap: string, topic: string, counts: readonly number[], tag: string): Promise<void> {
  const producer = sandboxKafka(bootstrap).producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const messages = counts.flatMap((n, partition) => Array.from({ length: n }, (_, i) => ({ partition, value: `${tag}-${partition}-${i}` })));
    if (messages.length > 0) await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

/** Runs one collector cycle every `everyMs` for `forMs`, each snapshot handed to `inspect`; returns the cycles run. */
export async function observeCycles(collector: { runCycle(): Promise<Snapshot> }, forMs: number, inspect: (s: Snapshot) => void, everyMs = 3000): Promise<number> {
  const until = Date.now() + forMs;
  let cycles = 0;
  while (Date.now() < until) {
    inspect(await collector.runCycle());
    cycles++;
    await sleep(everyMs);
  }
  return cycles;
}

/** A flow's rows of one source topic. */
export function listRows(s: Snapshot, flow: string, topic: string): FlowPartition[] {
  return s.flows.find((f) => f.id === flow)?.partitions.filter((p) => p.topic === topic) ?? [];
}

/** The rows of one topic in one line, for a timeout's message. */
export function describeRows(s: Snapshot, flow: string, topic: string): string {
  return listRows(s, flow, topic)
    .map((p) => `${p.partition}: ${p.sourceLogStart}-${p.sourceLogEnd} mm2 ${p.mm2Position} target ${p.targetLogEnd} lag ${p.lag}`)
    .join("; ");
}
