import type { Logger } from "pino";
import { getLogger } from "@/lib/logger";
import { TransitionType, type AlertTransition, type TransitionTypeName } from "../types";
import { buildAlertmanagerPayload } from "./alertmanager";
import { buildSlackPayload } from "./slack";
import { NotifierKind, type NotifierKindName, type NotifierTarget, type PayloadBuilder } from "./types";
import { buildWebhookPayload } from "./webhook";

const builders: Record<NotifierKindName, PayloadBuilder> = {
  [NotifierKind.WEBHOOK]: buildWebhookPayload,
  [NotifierKind.SLACK]: buildSlackPayload,
  [NotifierKind.ALERTMANAGER]: buildAlertmanagerPayload,
};

/** Options of createNotifier. */
export interface NotifierOptions {
  targets: readonly NotifierTarget[];
  /** Defaults to the global fetch. */
  fetchImpl?: typeof fetch;
  /** Tries per batch before it is dropped (logged). Default 5. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to maxDelayMs. Default 1000. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-request timeout. Default 5000. */
  timeoutMs?: number;
  /** Batches waiting per target; the oldest is dropped (logged) beyond it. Default 100. */
  maxQueue?: number;
  /** Which transitions are sent. Default fired, refired, resolved. */
  notifyOn?: readonly TransitionTypeName[];
  /** Gapwatch's external base URL for links in messages. */
  externalUrl?: string | null;
  logger?: Pick<Logger, "warn" | "error">;
}

/** A running notifier. */
export interface Notifier {
  /** Queues the transitions for every target and returns at once; delivery happens in the background. */
  enqueue(transitions: readonly AlertTransition[]): void;
  /** Resolves once every queue is empty and idle (tests, graceful shutdown). */
  drain(): Promise<void>;
  /** Stops delivering: queued batches are dropped and pending retries abandoned. */
  stop(): void;
  /** Batches waiting (not counting the one in flight) per target name. */
  countPending(): Record<string, number>;
}

/**
 * Delivers alert transitions to webhooks with retries. Each target has its own queue and worker,
 * so a slow or failing endpoint never delays the others nor the caller (the collector's poll
 * loop): enqueue only builds the payloads and pushes them. Failures are retried with exponential
 * backoff (baseDelayMs × 2^(attempt−1), capped) and logged with the target's name and host —
 * never its URL path or headers, which often carry tokens.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const config = {
    fetchImpl: options.fetchImpl ?? fetch,
    maxAttempts: options.maxAttempts ?? 5,
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 5000,
    maxQueue: options.maxQueue ?? 100,
    logger: options.logger ?? getLogger("alerts"),
  };
  const notifyOn = new Set(options.notifyOn ?? [TransitionType.FIRED, TransitionType.REFIRED, TransitionType.RESOLVED]);
  const queues = options.targets.map((target) => createTargetQueue(target, config));
  return {
    enqueue(transitions) {
      const selected = transitions.filter((t) => notifyOn.has(t.type));
      if (selected.length === 0) return;
      for (const queue of queues) {
        const context = { receiver: queue.target.name, externalUrl: options.externalUrl ?? null, sentAt: Date.now() };
        queue.push(JSON.stringify(builders[queue.target.kind](selected, context)));
      }
    },
    async drain() {
      await Promise.all(queues.map((q) => q.idle()));
    },
    stop() {
      for (const queue of queues) queue.stop();
    },
    countPending() {
      return Object.fromEntries(queues.map((q) => [q.target.name, q.size()]));
    },
  };
}

type QueueConfig = Required<Pick<NotifierOptions, "fetchImpl" | "maxAttempts" | "baseDelayMs" | "maxDelayMs" | "timeoutMs" | "maxQueue">> & {
  logger: Pick<Logger, "warn" | "error">;
};

function createTargetQueue(target: NotifierTarget, config: QueueConfig) {
  const bodies: string[] = [];
  const waiters: (() => void)[] = [];
  const where = { target: target.name, host: safeHost(target.url) };
  let running = false;
  let stopped = false;
  let cancelSleep: (() => void) | null = null;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      cancelSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function post(body: string): Promise<void> {
    const response = await config.fetchImpl(target.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...target.headers },
      body,
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    // fetch resolves on 4xx/5xx; only ok means delivered. Reading the body frees the connection.
    const text = await response.text().catch(() => "");
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
  }

  async function deliver(body: string): Promise<void> {
    for (let attempt = 1; attempt <= config.maxAttempts && !stopped; attempt++) {
      try {
        await post(body);
        return;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        if (attempt === config.maxAttempts) {
          config.logger.error({ ...where, attempts: attempt, error }, "alert notification dropped after retries");
          return;
        }
        const delayMs = Math.min(config.baseDelayMs * 2 ** (attempt - 1), config.maxDelayMs);
        config.logger.warn({ ...where, attempt, delayMs, error }, "alert notification failed; retrying");
        await sleep(delayMs);
      }
    }
  }

  async function run(): Promise<void> {
    running = true;
    for (let body = bodies.shift(); body !== undefined && !stopped; body = bodies.shift()) await deliver(body);
    running = false;
    for (const wake of waiters.splice(0)) wake();
  }

  return {
    target,
    push(body: string) {
      if (stopped) return;
      if (bodies.length >= config.maxQueue) {
        bodies.shift();
        config.logger.warn({ ...where, maxQueue: config.maxQueue }, "alert notification queue full; dropped the oldest batch");
      }
      bodies.push(body);
      if (!running) void run();
    },
    idle: () => (running ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
    size: () => bodies.length,
    stop() {
      stopped = true;
      bodies.length = 0;
      cancelSleep?.();
    },
  };
}

/** The host of a URL, for logs; the path and query may hold a token. */
function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid url)";
  }
}
