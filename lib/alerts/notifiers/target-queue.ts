import type { Logger } from "pino";
import type { NotifierTarget } from "./types";

/** One batch waiting for delivery: its JSON body, and what it carries (named when it is dropped). */
export interface Batch {
  body: string;
  /** e.g. `fired DATA_LOSS|east->west|orders|2|1200` per transition, or `re-send of 3 firing alerts`. */
  carries: string[];
  /** A re-send of the firing alerts (resendFiring): replaced by a newer one while waiting. */
  resend: boolean;
  /** The notification outbox rows it delivers (none for a re-send, or when the store could not keep them). */
  ids: number[];
}

/** How a target's queue delivers (NotifierOptions, defaults applied). */
export interface QueueConfig {
  fetchImpl: typeof fetch;
  maxAttempts: number;
  retryForMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  maxQueue: number;
  logger: Pick<Logger, "warn" | "error">;
  /** Called once per batch when it is delivered, or dropped (retries given up, queue full); not when stopped. */
  settle(batch: Batch, outcome: "delivered" | "dropped"): void;
}

export type TargetQueue = ReturnType<typeof createTargetQueue>;

/** A failed POST: its HTTP status, or null when no response came (refused, reset, timed out). */
class DeliveryError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/**
 * One target's FIFO queue and its worker. A batch is retried with exponential backoff
 * (baseDelayMs × 2^(attempt−1), capped at maxDelayMs) and dropped only after maxAttempts tries, and —
 * when the target is down (no response, 408, 429, 5xx) — only once retryForMs has passed since its
 * first try, so an outage shorter than that loses nothing but what the queue bound pushes out.
 * A rejection (other 4xx) will not change on retry: dropped after maxAttempts. The queue holds at
 * most maxQueue waiting batches; beyond it the oldest is dropped. Every drop is logged with what the
 * batch carried, and counted.
 */
export function createTargetQueue(target: NotifierTarget, config: QueueConfig) {
  const batches: Batch[] = [];
  const waiters: (() => void)[] = [];
  const where = { target: target.name, host: safeHost(target.url) };
  let running = false;
  let stopped = false;
  let dropped = 0;
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
    let response: Response;
    try {
      response = await config.fetchImpl(target.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers },
        body,
        signal: AbortSignal.timeout(config.timeoutMs),
      });
    } catch (err) {
      throw new DeliveryError(err instanceof Error ? err.message : String(err), null);
    }
    // fetch resolves on 4xx/5xx; only ok means delivered. Reading the body frees the connection.
    const text = await response.text().catch(() => "");
    if (!response.ok) throw new DeliveryError(`HTTP ${response.status}: ${text.slice(0, 200)}`, response.status);
  }

  async function deliver(batch: Batch): Promise<void> {
    const firstTry = Date.now();
    for (let attempt = 1; !stopped; attempt++) {
      try {
        await post(batch.body);
        config.settle(batch, "delivered");
        return;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const status = err instanceof DeliveryError ? err.status : null;
        const down = status === null || status === 408 || status === 429 || status >= 500;
        if (attempt >= config.maxAttempts && (!down || Date.now() - firstTry >= config.retryForMs)) {
          dropped += 1;
          config.logger.error({ ...where, attempts: attempt, error, dropped: batch.carries }, "alert notification dropped after retries");
          config.settle(batch, "dropped");
          return;
        }
        // Stopped while this try was in flight: no retry to wait for.
        if (stopped) return;
        const delayMs = Math.min(config.baseDelayMs * 2 ** (attempt - 1), config.maxDelayMs);
        config.logger.warn({ ...where, attempt, delayMs, error }, "alert notification failed; retrying");
        await sleep(delayMs);
      }
    }
  }

  /** Delivers `first` (already taken off the queue: in flight), then every waiting batch in order. */
  async function run(first: Batch): Promise<void> {
    for (let batch: Batch | undefined = first; batch !== undefined && !stopped; batch = batches.shift()) await deliver(batch);
    running = false;
    for (const wake of waiters.splice(0)) wake();
  }

  return {
    target,
    push(batch: Batch) {
      if (stopped) return;
      if (batch.resend) {
        const waiting = batches.findIndex((b) => b.resend);
        if (waiting >= 0) batches.splice(waiting, 1);
      }
      if (batches.length >= config.maxQueue) {
        const oldest = batches.shift()!;
        dropped += 1;
        config.logger.warn({ ...where, maxQueue: config.maxQueue, dropped: oldest.carries }, "alert notification queue full; dropped the oldest batch");
        config.settle(oldest, "dropped");
      }
      if (running) {
        batches.push(batch);
        return;
      }
      // In flight at once, but posted on the next turn of the event loop: the caller (the poll loop)
      // never pays for building the request (fetch initialises lazily, tens of ms the first time).
      running = true;
      setImmediate(() => void run(batch));
    },
    idle: () => (running ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
    size: () => batches.length,
    countDropped: () => dropped,
    stop() {
      stopped = true;
      batches.length = 0;
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
