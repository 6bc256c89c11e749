import type { Logger } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createNotifier } from "@/lib/alerts/notifiers/delivery-queue";
import { createMemoryLogger, makeTransition, reply, startReceiver } from "../helpers";

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
const start = async (respond: Parameters<typeof startReceiver>[0]) => {
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  return receiver;
};
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
const asLogger = (memory: ReturnType<typeof createMemoryLogger>) => memory as unknown as Pick<Logger, "warn" | "error">;

describe("createNotifier", () => {
  it("retries with exponential backoff until the endpoint accepts, and never logs the URL's secret path", async () => {
    const receiver = await start((n, res) => reply(res, n < 2 ? 503 : 200));
    const logger = createMemoryLogger();
    const notifier = createNotifier({
      targets: [{ name: "ops-hook", kind: "webhook", url: receiver.url("/hooks/SECRET-TOKEN"), headers: { authorization: "Bearer SECRET-HEADER" } }],
      maxAttempts: 5,
      baseDelayMs: 50,
      logger: asLogger(logger),
    });
    notifier.enqueue([makeTransition("fired")]);
    await notifier.drain();

    expect(receiver.received).toHaveLength(3);
    const [a, b, c] = receiver.received.map((r) => r.at);
    expect((b ?? 0) - (a ?? 0)).toBeGreaterThanOrEqual(45);
    expect((c ?? 0) - (b ?? 0)).toBeGreaterThanOrEqual(95);
    expect(new Set(receiver.received.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(receiver.received[0]?.headers.authorization).toBe("Bearer SECRET-HEADER");
    expect(receiver.received[0]?.body).toMatchObject({ version: "1", source: "gapwatch", transitions: [{ type: "fired", alert: { key: "DATA_LOSS|east->west|orders|2|1200" } }] });
    expect(logger.entries.map((e) => [e.level, e.message])).toEqual([
      ["warn", "alert notification failed; retrying"],
      ["warn", "alert notification failed; retrying"],
    ]);
    expect(logger.entries[1]?.fields).toMatchObject({ target: "ops-hook", attempt: 2, delayMs: 100, error: "HTTP 503: try later" });
    expect(JSON.stringify(logger.entries)).not.toContain("SECRET");
  });

  it("returns from enqueue at once while an endpoint hangs, times it out, and keeps other targets flowing", async () => {
    const hanging = await start(() => null);
    const healthy = await start((_, res) => reply(res, 204));
    const logger = createMemoryLogger();
    const notifier = createNotifier({
      targets: [
        { name: "hanging", kind: "webhook", url: hanging.url("/") },
        { name: "slack", kind: "slack", url: healthy.url("/services/x") },
      ],
      // One try: a timeout is "down", which is otherwise retried for retryForMs.
      maxAttempts: 1,
      retryForMs: 0,
      // Long enough that the healthy target is served before it even on a loaded CI machine.
      timeoutMs: 3000,
      logger: asLogger(logger),
    });
    const before = performance.now();
    notifier.enqueue([makeTransition("fired")]);
    expect(performance.now() - before).toBeLessThan(50);

    await expect.poll(() => healthy.received.length, { timeout: 2500 }).toBe(1);
    expect(logger.entries).toEqual([]);
    await notifier.drain();
    expect(logger.entries.map((e) => [e.level, e.fields])).toEqual([
      ["error", expect.objectContaining({ target: "hanging", attempts: 1, error: expect.stringMatching(/timeout|aborted/i) as unknown })],
    ]);
  });

  it("drops the oldest waiting batch when a target's queue is full", async () => {
    const receiver = await start((_, res) => void setTimeout(() => reply(res, 200), 100));
    const logger = createMemoryLogger();
    const notifier = createNotifier({ targets: [{ name: "slow", kind: "webhook", url: receiver.url("/") }], maxQueue: 1, logger: asLogger(logger) });
    for (const id of ["first", "second", "third"]) notifier.enqueue([makeTransition("fired", { id })]);
    expect(notifier.countPending()).toEqual({ slow: 1 });
    await notifier.drain();
    const ids = receiver.received.map((r) => (r.body as { transitions: { alert: { id: string } }[] }).transitions[0]?.alert.id);
    expect(ids).toEqual(["first", "third"]);
    expect(logger.entries.map((e) => e.message)).toEqual(["alert notification queue full; dropped the oldest batch"]);
  });

  it("sends fired, refired and resolved transitions only, unless told otherwise", async () => {
    const receiver = await start((_, res) => reply(res, 200));
    const target = { name: "hook", kind: "webhook" as const, url: receiver.url("/") };
    const byDefault = createNotifier({ targets: [target] });
    byDefault.enqueue([makeTransition("updated")]);
    await byDefault.drain();
    expect(receiver.received).toHaveLength(0);

    const everything = createNotifier({ targets: [target], notifyOn: ["updated"] });
    everything.enqueue([makeTransition("updated"), makeTransition("fired")]);
    await everything.drain();
    expect(receiver.received.map((r) => (r.body as { transitions: { type: string }[] }).transitions.map((t) => t.type))).toEqual([["updated"]]);
  });

  it("abandons pending retries when stopped", async () => {
    const receiver = await start((_, res) => reply(res, 500));
    const notifier = createNotifier({ targets: [{ name: "down", kind: "webhook", url: receiver.url("/") }], baseDelayMs: 10_000, logger: asLogger(createMemoryLogger()) });
    notifier.enqueue([makeTransition("fired")]);
    await expect.poll(() => receiver.received.length).toBe(1);
    notifier.stop();
    const started = performance.now();
    await notifier.drain();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(receiver.received).toHaveLength(1);
  });
});
