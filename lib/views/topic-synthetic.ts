import { formatCount } from "@/lib/format";
import type { PartitionRowView } from "./topic";

/**
 * Deterministic fake partition rows for `?synthetic=N` (browser tests of the virtualized table):
 * row i always has the same values, so a test can look for "partition 4999" and its offsets.
 * Client-safe and pure; generated in the browser so 5,000 rows never travel over the wire.
 */
export function generateSyntheticPartitionRows(count: number): PartitionRowView[] {
  return Array.from({ length: count }, (_, i) => {
    const start = i * 7;
    const end = 10_000 + i * 13;
    const lag = i % 10 === 0 ? (i * 31) % 500 : 0;
    const position = end - lag;
    const replicas = [1 + (i % 3), 1 + ((i + 1) % 3), 1 + ((i + 2) % 3)];
    const isr = i % 97 === 0 ? replicas.slice(0, 2) : replicas;
    return {
      partition: i,
      sourceLogStart: formatCount(start),
      sourceLogEnd: formatCount(end),
      mm2Position: formatCount(position),
      committedPosition: formatCount(Math.max(start, position - (i % 5))),
      positionSource: "synthetic",
      targetLogEnd: formatCount(position - start),
      lag: formatCount(lag),
      lagState: lag > 0 ? "behind" : "zero",
      partial: null,
      lagNote: null,
      positionNote: null,
      transactionNote: null,
      latestSync: `${formatCount(position - 1)} → ${formatCount(position - 1 - start)}`,
      leader: String(replicas[0]),
      leaderEpoch: String(i % 4),
      isr: isr.join(","),
      replicas: replicas.join(","),
      underReplicated: isr.length < replicas.length,
    };
  });
}
