import { runFailTask, runPurge, runRecover, runTopicReset } from "@/lib/sandbox/scenarios";
import { bootstrapOf, type SandboxState } from "@/lib/sandbox/state";
import { ensureTopics, sandboxKafka } from "@/lib/sandbox/topics";
import { pollUntil } from "./dashboard-client";
import { failedInjection, type InjectionResult, type LatencyContext, measureInjection } from "./measure-injection";

export const resetTopicName = (i: number) => `latency-reset-${i}`;

/** fail-task, measured, then recover (not measured). */
export async function injectFailTask(ctx: LatencyContext, i: number): Promise<InjectionResult> {
  // The same task fails every round: wait until the last round's alert resolved (1 min hysteresis).
  const resolved = await pollUntil(async () => ((await ctx.dashboard.listFiringAlerts("TASK_FAILED")).length === 0 ? true : null), "TASK_FAILED to resolve", 240_000, 1000).catch(
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  if (resolved !== true) return failedInjection("fail-task", `source task #${i + 1}`, resolved);
  const result = await measureInjection(ctx, {
    scenario: "fail-task",
    target: `source task #${i + 1}`,
    type: "TASK_FAILED",
    inject: () => runFailTask(ctx.state),
    matches: () => true,
    bannerText: null,
  });
  await runRecover(ctx.state);
  return result;
}

/** purge of orders/<i mod 6> (records deleted before MM2 copied them). */
export function injectPurge(ctx: LatencyContext, i: number): Promise<InjectionResult> {
  const partition = i % 6;
  return measureInjection(ctx, {
    scenario: "purge",
    target: `orders/${partition}`,
    type: "DATA_LOSS",
    inject: () => runPurge(ctx.state, { topic: "orders", partition, records: 200 }),
    matches: (a) => a.topic === "orders" && a.partition === partition,
    bannerText: `of orders/${partition} `,
  });
}

/** topic-reset of latency-reset-<i>, once MM2 has replicated it. */
export async function injectTopicReset(ctx: LatencyContext, i: number): Promise<InjectionResult> {
  const topic = resetTopicName(i);
  try {
    await waitForReplicated(ctx, topic);
  } catch (err) {
    return failedInjection("topic-reset", topic, err instanceof Error ? err.message : String(err));
  }
  return measureInjection(ctx, {
    scenario: "topic-reset",
    target: topic,
    type: "TOPIC_RESET",
    inject: () => runTopicReset(ctx.state, { topic, records: 20 }),
    matches: (a) => a.topic === topic,
    bannerText: `${topic}/`,
  });
}

/**
 * Throwaway topics for topic-reset (2 partitions, 100 records each, so MM2's position after the
 * reset lies beyond the recreated topic's log end); MM2 picks them up within its 5 s refresh.
 */
export async function prepareResetTopics(state: SandboxState, rounds: number): Promise<void> {
  const bootstrap = bootstrapOf(state, "east");
  const topics = Array.from({ length: rounds }, (_, i) => resetTopicName(i));
  // ensureTopics waits for leaders with kafkajs, which can fail while a busy broker catches up; it is idempotent.
  await pollUntil(
    async () => {
      await ensureTopics(bootstrap, topics.map((topic) => ({ topic, partitions: 2 })));
      return true;
    },
    "the latency-reset topics to be created",
    120_000,
    2000,
  );
  const producer = sandboxKafka(bootstrap, "gapwatch-bench-latency").producer();
  await producer.connect();
  try {
    for (const topic of topics) {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 200 }, (_, seq) => ({ partition: seq % 2, value: JSON.stringify({ topic, seq, run: "bench" }) })) });
    }
  } finally {
    await producer.disconnect();
  }
}

/** Until the dashboard's flow shows every partition of `topic` fully replicated. */
function waitForReplicated(ctx: LatencyContext, topic: string): Promise<true> {
  return pollUntil(
    async () => {
      const rows = (await ctx.dashboard.readFlowPartitions(ctx.flowId)).filter((r) => r.topic === topic);
      return rows.length === 2 && rows.every((r) => r.mm2Position !== null && r.mm2Position === r.sourceLogEnd && r.sourceLogEnd === "100") ? true : null;
    },
    `${topic} to be replicated`,
    180_000,
    1000,
  );
}
