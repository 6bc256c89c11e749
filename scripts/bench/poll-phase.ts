import type { Collector } from "@/lib/collector/collector";
import { type BenchTopicAdmins, createBenchTopics, partitionsPerBenchTopic } from "./bench-topics";
import type { NaivePoller } from "./naive-poller";
import { measureNaiveCycles } from "./naive-poller";
import { measureOurCycles, waitForFlowPartitions } from "./poll-cost";
import type { PollSizeResult } from "./report";

export interface PollPhaseOptions {
  sizes: number[];
  cycles: number;
  /** Time allowed for the naive poller's cycles per size. */
  naiveBudgetMs: number;
  flowId: string;
  log: (line: string) => void;
}

/**
 * For each size: create the missing benchmark topics (both clusters), wait until the collector's
 * flow holds them, then measure our cycles and the naive poller's, one after the other.
 */
export async function runPollPhase(admins: BenchTopicAdmins, collector: Collector, naive: NaivePoller, opts: PollPhaseOptions): Promise<PollSizeResult[]> {
  const results: PollSizeResult[] = [];
  let topics = 0;
  for (const size of opts.sizes) {
    const wanted = Math.ceil(size / partitionsPerBenchTopic);
    const result: PollSizeResult = { benchPartitions: wanted * partitionsPerBenchTopic, benchTopics: wanted, createRequestSeconds: 0, createSeconds: 0, ours: null, naive: null, error: null };
    results.push(result);
    try {
      opts.log(`Creating ${(wanted - topics) * partitionsPerBenchTopic} partitions on each cluster (${result.benchPartitions} in total)…`);
      const started = performance.now();
      result.createRequestSeconds = (await createBenchTopics(admins, topics, wanted)) / 1000;
      topics = wanted;
      opts.log(`  CreateTopics answered in ${result.createRequestSeconds.toFixed(1)} s; waiting until both brokers serve every new partition…`);
      await waitForFlowPartitions(collector, opts.flowId, (t) => t.startsWith("bench-"), result.benchPartitions);
      result.createSeconds = (performance.now() - started) / 1000;
      opts.log(`  all partitions served ${result.createSeconds.toFixed(1)} s after the first CreateTopics`);
      result.ours = await measureOurCycles(collector, opts.flowId, opts.cycles);
      opts.log(`  ours: ${result.ours.requestsPerCycle.median} requests/cycle, poll ${result.ours.pollWallMs.median.toFixed(0)} ms, whole cycle ${result.ours.wallMs.median.toFixed(0)} ms (medians)`);
      result.naive = await measureNaiveCycles(naive, opts.cycles, opts.naiveBudgetMs);
      opts.log(`  naive: ${result.naive.requestsPerCycle.median} requests/cycle, ${result.naive.wallMs.median.toFixed(0)} ms median cycle`);
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
      opts.log(`  failed: ${result.error}`);
      if (result.ours === null) break;
    }
  }
  return results;
}
