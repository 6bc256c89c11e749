import type { Logger } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createNotifier } from "@/lib/alerts/notifiers/delivery-queue";
import { createMemoryLogger, makeTransition, T } from "../helpers";

afterEach(() => {
  vi.useRealTimers();
});

describe("a webhook target that is down for 10 minutes (injected clock)", () => {
  it("keeps at most 100 batches, retries with backoff, delivers every batch still in bound when it returns, names what it dropped", async () => {
    vi.useFakeTimers({ now: T });
    let down = true;
    const attempts: number[] = [];
    const delivered: string[] = [];
    const fetchImpl = (async (_url: string | URL | Request, init?: RequestInit) => {
      attempts.push(Date.now());
      if (down) throw new TypeError("fetch failed: connect ECONNREFUSED 10.0.0.9:443");
      delivered.push((JSON.parse(String(init?.body)) as { transitions: { alert: { id: string } }[] }).transitions[0]!.alert.id);
      return new Response("ok");
    }) as typeof fetch;
    const logger = createMemoryLogger();
    // Defaults: 5 tries, 1 s doubling to 60 s, retried for 30 minutes while down, 100 batches waiting.
    const notifier = createNotifier({ targets: [{ name: "ops", kind: "webhook", url: "https://hooks.example.com/T0KEN" }], fetchImpl, logger: logger as unknown as Pick<Logger, "warn" | "error"> });

    // A poll cycle every 4 s for 10 minutes, each with one new alert: 150 batches.
    let enqueueMs = 0;
    let peak = 0;
    for (let i = 0; i < 150; i++) {
      const started = performance.now();
      notifier.enqueue([makeTransition("fired", { id: `alert-${i}`, key: `DATA_LOSS|east->west|orders|${i}|0` })]);
      enqueueMs += performance.now() - started;
      peak = Math.max(peak, notifier.countPending().ops!);
      await vi.advanceTimersByTimeAsync(4_000);
    }
    expect(Date.now() - T).toBe(600_000);
    expect(peak).toBe(100);
    expect(delivered).toEqual([]);
    // Backoff: 1, 2, 4, 8, 16, 32 s, then every 60 s.
    expect(attempts.slice(1, 9).map((at, i) => at - attempts[i]!)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(attempts).toHaveLength(15);

    down = false;
    await vi.advanceTimersByTimeAsync(60_000);
    await notifier.drain();
    // The batch in flight through the outage, then the 100 newest in order; the 49 pushed out are named.
    expect(delivered).toEqual(["alert-0", ...Array.from({ length: 100 }, (_, i) => `alert-${50 + i}`)]);
    expect(notifier.countDropped()).toEqual({ ops: 49 });
    const drops = logger.entries.filter((e) => e.message === "alert notification queue full; dropped the oldest batch");
    expect(drops.map((e) => (e.fields as { dropped: string[] }).dropped)).toEqual(Array.from({ length: 49 }, (_, i) => [`fired DATA_LOSS|east->west|orders|${i + 1}|0`]));
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([]);
    expect(JSON.stringify(logger.entries)).not.toContain("T0KEN");
    // The poll loop's side: 150 enqueues while the target was down cost next to nothing.
    expect(enqueueMs).toBeLessThan(500);
  });

  it("gives up on a batch only once it has been retried for retryForMs, and says what it carried", async () => {
    vi.useFakeTimers({ now: T });
    const fetchImpl = (async () => new Response("down", { status: 503 })) as typeof fetch;
    const logger = createMemoryLogger();
    const notifier = createNotifier({
      targets: [{ name: "ops", kind: "webhook", url: "https://hooks.example.com/x" }],
      fetchImpl,
      retryForMs: 120_000,
      logger: logger as unknown as Pick<Logger, "warn" | "error">,
    });
    notifier.enqueue([makeTransition("resolved", { state: "resolved", resolvedAt: T })]);
    await vi.advanceTimersByTimeAsync(200_000);
    await notifier.drain();
    // Tries at 0, 1, 3, 7, 15, 31, 63, 123 s: the first past 120 s gives up.
    const errors = logger.entries.filter((e) => e.level === "error");
    expect(errors.map((e) => e.fields)).toEqual([
      expect.objectContaining({ target: "ops", attempts: 8, error: "HTTP 503: down", dropped: ["resolved DATA_LOSS|east->west|orders|2|1200"] }),
    ]);
    expect(notifier.countDropped()).toEqual({ ops: 1 });
  });

  it("drops a rejected batch (400) after maxAttempts, however long retryForMs is", async () => {
    vi.useFakeTimers({ now: T });
    let calls = 0;
    const fetchImpl = (async () => {
      calls += 1;
      return new Response("bad payload", { status: 400 });
    }) as typeof fetch;
    const logger = createMemoryLogger();
    const notifier = createNotifier({ targets: [{ name: "ops", kind: "webhook", url: "https://hooks.example.com/x" }], fetchImpl, maxAttempts: 3, logger: logger as unknown as Pick<Logger, "warn" | "error"> });
    notifier.enqueue([makeTransition("fired")]);
    await vi.advanceTimersByTimeAsync(10_000);
    await notifier.drain();
    expect(calls).toBe(3);
    expect(notifier.countDropped()).toEqual({ ops: 1 });
  });
});
