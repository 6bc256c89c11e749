import { type Admin, Kafka, logLevel } from "kafkajs";
import { type CycleRequests, formatRequestKey, type RequestRow, sumRequests, tabulateRequests } from "./request-tally";
import { type Distribution, summarize } from "./stats";

/**
 * The baseline: how most Node tools poll offsets with kafkajs' public admin API. Per cycle and
 * cluster, fetchTopicMetadata() for the topic list, then fetchTopicOffsets(topic) (latest and
 * earliest) topic after topic. Clusters are polled in parallel, like Gapwatch does.
 */
export interface NaivePoller {
  pollOnce(): Promise<void>;
  /** Requests since the last call, from kafkajs' `admin.network.request` instrumentation events. */
  takeRequests(): CycleRequests;
  /** Topics whose offsets could not be read since the last call (the tool would log and go on). */
  takeFailures(): number;
  close(): Promise<void>;
}

export async function connectNaivePoller(clusters: Record<string, { bootstrap: string }>): Promise<NaivePoller> {
  let tally: CycleRequests = new Map();
  let failures = 0;
  const admins: { alias: string; admin: Admin }[] = [];
  for (const [alias, c] of Object.entries(clusters)) {
    const admin = new Kafka({ clientId: "naive-poller", brokers: [c.bootstrap], logLevel: logLevel.NOTHING }).admin();
    admin.on(admin.events.REQUEST, (event) => {
      const key = formatRequestKey(alias, event.payload.apiName, event.payload.broker);
      tally.set(key, (tally.get(key) ?? 0) + 1);
    });
    await admin.connect();
    admins.push({ alias, admin });
  }
  return {
    async pollOnce() {
      await Promise.all(
        admins.map(async ({ admin }) => {
          const { topics } = await admin.fetchTopicMetadata();
          for (const t of topics) {
            await admin.fetchTopicOffsets(t.name).catch(() => {
              failures += 1;
            });
          }
        }),
      );
    },
    takeRequests() {
      const taken = tally;
      tally = new Map();
      return taken;
    },
    takeFailures() {
      const taken = failures;
      failures = 0;
      return taken;
    },
    async close() {
      await Promise.allSettled(admins.map(({ admin }) => admin.disconnect()));
    },
  };
}

export interface NaivePollResult {
  cycles: number;
  wallMs: Distribution;
  requestsPerCycle: Distribution;
  requests: RequestRow[];
  /** Topic reads that failed during the measured cycles. */
  failedTopicReads: number;
}

/**
 * `warmup` cycles (kafkajs refreshes its metadata once per newly seen topic), then up to `cycles`
 * measured ones, stopping early (after at least 5) when `budgetMs` is spent.
 */
export async function measureNaiveCycles(poller: NaivePoller, cycles: number, budgetMs: number, warmup = 1): Promise<NaivePollResult> {
  for (let i = 0; i < warmup; i++) await poller.pollOnce();
  poller.takeRequests();
  poller.takeFailures();
  const wall: number[] = [];
  const perCycle: CycleRequests[] = [];
  const deadline = Date.now() + budgetMs;
  for (let i = 0; i < cycles && (i < 5 || Date.now() < deadline); i++) {
    const started = performance.now();
    await poller.pollOnce();
    wall.push(performance.now() - started);
    perCycle.push(poller.takeRequests());
  }
  return {
    cycles: wall.length,
    wallMs: summarize(wall),
    requestsPerCycle: summarize(perCycle.map(sumRequests)),
    requests: tabulateRequests(perCycle),
    failedTopicReads: poller.takeFailures(),
  };
}
