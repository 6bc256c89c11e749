import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import type { SandboxState } from "@/lib/sandbox/state";

/**
 * Ground truth for the real-cluster tests: what Kafka's own TopicCommand and GetOffsetShell (run
 * from the sandbox's jars) report, never the code under test.
 */

/** One partition line of `kafka-topics --describe`. */
export interface DescribedPartition {
  topic: string;
  partition: number;
  leader: number | null;
  replicas: number[];
  isr: number[];
}

/**
 * Partitions `kafka-topics --describe` lists with `filter` (`--under-replicated-partitions`,
 * `--unavailable-partitions`), over every topic of the cluster, sorted by topic and partition.
 */
export async function describePartitions(state: SandboxState, bootstrap: string, filter: string): Promise<DescribedPartition[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.TopicCommand", ["--bootstrap-server", bootstrap, "--describe", filter]);
  const parts: DescribedPartition[] = [];
  // Within one line only: an empty ISR prints as "Isr: " followed by the next column.
  const line = /^[ \t]*Topic:[ \t]*(\S+)[ \t]+Partition:[ \t]*(\d+)[ \t]+Leader:[ \t]*(\S+)[ \t]+Replicas:[ \t]*([\d,]*)[ \t]+Isr:[ \t]*([\d,]*)/gm;
  const ids = (list: string) => (list === "" ? [] : list.split(",").map(Number));
  for (const m of out.matchAll(line)) {
    const leader = m[3] === "none" || Number(m[3]) < 0 ? null : Number(m[3]);
    parts.push({ topic: m[1]!, partition: Number(m[2]), leader, replicas: ids(m[4]!), isr: ids(m[5]!) });
  }
  return parts.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/** Log end offsets (`topic/partition` → offset) of the topics matching `topics` (a regex), from GetOffsetShell. */
export async function readLogEnds(state: SandboxState, bootstrap: string, topics: string): Promise<Map<string, bigint>> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.GetOffsetShell", ["--bootstrap-server", bootstrap, "--topic", topics, "--time", "-1"]);
  const ends = new Map<string, bigint>();
  for (const m of out.matchAll(/^(.+):(\d+):(-?\d+)$/gm)) ends.set(`${m[1]}/${m[2]}`, BigInt(m[3]!));
  return ends;
}
