import type { Flow, FlowPartition } from "@/lib/collector/types";
import type { Store } from "@/lib/store/types";

/** 2025-01-15 00:00 UTC, a 30 s poll for 3 h: raw samples packed into 5-minute packs, rolled up to hours, pruned. */
export const t0 = Date.UTC(2025, 0, 15);
const pollMs = 30_000;
const cycles = 360;
const topics = 6;
const partitionsPerTopic = 4;

/** Topic i moves every (i + 1)-th cycle; a topic with no lag in some cycles, one offset beyond 2^53. */
function listPartitions(cycle: number): FlowPartition[] {
  const partitions: FlowPartition[] = [];
  for (let t = 0; t < topics; t++) {
    for (let p = 0; p < partitionsPerTopic; p++) {
      const end = BigInt(1000 + Math.floor(cycle / (t + 1)) * (p + 1)) + (t === 5 ? 2n ** 60n : 0n);
      const lag = t === 3 && cycle % 7 === 0 ? null : BigInt((cycle + p) % (t + 2));
      partitions.push({
        topic: `orders-${t}`, partition: p, sourceLogStart: BigInt(cycle >> 5), sourceLogEnd: end,
        mm2Position: lag === null ? null : end - lag, targetLogEnd: end, lag,
      } as unknown as FlowPartition);
    }
  }
  return partitions;
}

/** Writes every kind of history the store engine handles, through the Store interface. */
export async function writeHistory(store: Store): Promise<void> {
  for (let c = 0; c < cycles; c++) {
    const at = t0 + c * pollMs;
    await store.recordFlowSamples([{ id: "east->west", partitions: listPartitions(c) } as unknown as Flow], at);
    await store.recordTranslationSamples("east->west", listTranslationSamples(c), at);
    if (c % 40 === 0) {
      await store.appendOffsetSyncs("east->west", "orders-0", 0, [{ upstream: BigInt(c * 10), downstream: BigInt(c * 9) }], at);
      const checkpoint = { group: "billing", topic: "orders-0", partition: 0, upstream: BigInt(c), downstream: BigInt(c - 1), at };
      await store.appendCheckpoints("east->west", [checkpoint]);
    }
    if (c % 60 === 59) await store.prune(at);
  }
  const at = t0 + cycles * pollMs;
  const delivery = (alertId: string) => ({
    alertId, transition: "firing", at, target: "pager", queuedAt: at, payload: `{"a":"${alertId}"}`,
  });
  const queued = await store.saveAlerts([], [delivery("a1"), delivery("a2"), delivery("a3")]);
  await store.finishNotifications([queued[0]!.id], "delivered", at + 1);
  await store.leaseNotifications([queued[1]!.id], { owner: "collector-1", until: at + 60_000 }, at);
}

function listTranslationSamples(cycle: number) {
  return [0, 1, 2].map((p) => ({
    group: "billing", topic: "orders-0", partition: p, committed: BigInt(100 + Math.floor(cycle / 3) + p),
    translated: p === 2 ? null : BigInt(90 + Math.floor(cycle / 3)), checkpointDownstream: BigInt(80 + Math.floor(cycle / 6)),
    idealLow: 1n, idealHigh: 2n, reread: BigInt(cycle % 4), failoverReread: null, groupLag: BigInt(cycle % 9),
  }));
}

/** Every read the engine serves, over ranges that take each tier (raw, 5-minute, hourly) and carry a value forward. */
export async function runReads(store: Store): Promise<Record<string, unknown>> {
  const end = t0 + cycles * pollMs;
  const ranges = [[t0, end], [end - 20 * 60_000, end], [t0 + 37 * 60_000, t0 + 95 * 60_000]] as const;
  const reads: Record<string, unknown> = {};
  for (const [from, to] of ranges) {
    for (const [topic, partition] of [["orders-0", 0], ["orders-3", 2], ["orders-5", 3]] as const) {
      const name = `history ${topic}/${partition} ${from - t0}..${to - t0}`;
      reads[name] = await store.readPartitionHistory("east->west", topic, partition, from, to);
    }
    reads[`topic lag ${from - t0}..${to - t0}`] = await store.readTopicLagSeries("east->west", from, to);
    reads[`translation ${from - t0}..${to - t0}`] = await store.readTranslationSeries("east->west", "billing", from, to);
  }
  reads.offsetSyncs = [...(await store.loadOffsetSyncHistory())];
  reads.checkpoints = await store.readCheckpointHistory("east->west", "billing", "orders-0", 0, 100);
  reads.queued = await store.listQueuedNotifications();
  return reads;
}
