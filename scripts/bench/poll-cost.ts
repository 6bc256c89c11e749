import type { Collector } from "@/lib/collector/collector";
import type { Snapshot } from "@/lib/collector/types";
import { collectGarbage } from "./gc";
import { type CycleRequests, formatRequestKey, type RequestRow, sumRequests, tabulateRequests } from "./request-tally";
import { type Distribution, summarize, toMiB } from "./stats";

export interface OurPollResult {
  cycles: number;
  /** The whole cycle: poll, then the pipeline (translation, detectors, alerts, store, metrics, publishing). */
  wallMs: Distribution;
  /** The poll alone (the snapshot's durationMs: both clusters and Connect read, flows built). */
  pollWallMs: Distribution;
  /** This process's CPU over the whole cycle. */
  cpuMs: Distribution;
  requestsPerCycle: Distribution;
  requests: RequestRow[];
  /** This process after a forced GC (it also holds the naive poller's kafkajs clients and Playwright). */
  rssMiB: number;
  heapUsedMiB: number;
  /** Partitions in the flow and topics per cluster as the last measured cycle saw them. */
  flowPartitions: number;
  topics: Record<string, number>;
}

/**
 * Runs `warmup` then `cycles` whole cycles back to back (the collector's cycle awaits its pipeline listener). Per
 * measured cycle: Kafka requests by cluster, API and broker (reset before the cycle), wall time of the whole cycle
 * and of its poll, and this process's CPU time.
 */
export async function measureOurCycles(collector: Collector, flowId: string, cycles: number, warmup = 2): Promise<OurPollResult> {
  for (let i = 0; i < warmup; i++) await collector.runCycle();
  const wall: number[] = [];
  const poll: number[] = [];
  const cpu: number[] = [];
  const perCycle: CycleRequests[] = [];
  let last: Snapshot | null = null;
  for (let i = 0; i < cycles; i++) {
    collector.resetRequestCounts();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    last = await collector.runCycle();
    wall.push(performance.now() - started);
    poll.push(last.durationMs);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    perCycle.push(readCycleRequests(collector));
  }
  collectGarbage();
  const memory = process.memoryUsage();
  return {
    cycles,
    wallMs: summarize(wall),
    pollWallMs: summarize(poll),
    cpuMs: summarize(cpu),
    requestsPerCycle: summarize(perCycle.map(sumRequests)),
    requests: tabulateRequests(perCycle),
    rssMiB: toMiB(memory.rss),
    heapUsedMiB: toMiB(memory.heapUsed),
    flowPartitions: last?.flows.find((f) => f.id === flowId)?.partitions.length ?? 0,
    topics: Object.fromEntries((last?.clusters ?? []).map((c) => [c.alias, c.topics.length])),
  };
}

function readCycleRequests(collector: Collector): CycleRequests {
  const tally: CycleRequests = new Map();
  for (const [cluster, rows] of Object.entries(collector.readRequestCounts())) {
    for (const row of rows) {
      const key = formatRequestKey(cluster, row.api, row.broker);
      tally.set(key, (tally.get(key) ?? 0) + row.count);
    }
  }
  return tally;
}

/**
 * Cycles until the collector's flow holds `expected` partitions of topics matching `counts` with
 * log offsets read on both clusters (new partitions answer NOT_LEADER until their broker serves them).
 */
export async function waitForFlowPartitions(collector: Collector, flowId: string, counts: (topic: string) => boolean, expected: number, timeoutMs = 600_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while (Date.now() < deadline) {
    const snapshot = await collector.runCycle();
    const flow = snapshot.flows.find((f) => f.id === flowId);
    seen = flow?.partitions.filter((p) => counts(p.topic) && p.sourceLogEnd !== null && p.targetLogEnd !== null).length ?? 0;
    if (seen >= expected) return seen;
  }
  throw new Error(`the collector's flow ${flowId} held ${seen} of ${expected} benchmark partitions with offsets on both clusters after ${timeoutMs / 1000}s`);
}
