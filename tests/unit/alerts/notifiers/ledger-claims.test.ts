import type { Logger } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createNotifier } from "@/lib/alerts/notifiers/delivery-queue";
import type { NotificationClaim } from "@/lib/store";
import { createMemoryLogger, makeTransition, reply, startReceiver } from "../helpers";

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** An in-memory ledger with the store's contract: the first claim of a key wins. */
function createLedger() {
  const keys = new Set<string>();
  const claims: NotificationClaim[] = [];
  return {
    claims,
    claim: async (c: NotificationClaim) => {
      claims.push(c);
      const key = `${c.alertId}|${c.transition}|${c.at}|${c.target}`;
      if (keys.has(key)) return false;
      keys.add(key);
      return true;
    },
  };
}

const T = Date.UTC(2025, 0, 15, 3, 0, 0);

describe("createNotifier with the notification ledger", () => {
  it("claims each transition per target with its cycle time and sends only what its claim won", async () => {
    const receiver = await startReceiver((_, res) => reply(res, 200));
    receivers.push(receiver);
    const ledger = createLedger();
    // Two notifiers on one ledger: the old and the new owner of a shard, both seeing the same transitions.
    const [oldOwner, newOwner] = [0, 1].map(() => createNotifier({ targets: [{ name: "webhook-1", kind: "webhook", url: receiver.url("/hook") }], claim: ledger.claim }));
    const fired = makeTransition("fired", { firstSeen: T, lastSeen: T });
    const resolved = makeTransition("resolved", { state: "resolved", firstSeen: T, lastSeen: T + 10_000, resolvedAt: T + 70_000 });
    oldOwner!.enqueue([fired]);
    await oldOwner!.drain();
    newOwner!.enqueue([fired, resolved]);
    await newOwner!.drain();

    expect(ledger.claims).toEqual([
      { alertId: "0123456789abcdef", transition: "fired", at: T, target: "webhook-1" },
      { alertId: "0123456789abcdef", transition: "fired", at: T, target: "webhook-1" },
      { alertId: "0123456789abcdef", transition: "resolved", at: T + 70_000, target: "webhook-1" },
    ]);
    expect(receiver.received.map((r) => (r.body as { transitions: { type: string }[] }).transitions.map((t) => t.type))).toEqual([["fired"], ["resolved"]]);
  });

  it("sends the transition all the same and logs it when the ledger cannot be written (a lost page is worse)", async () => {
    const receiver = await startReceiver((_, res) => reply(res, 200));
    receivers.push(receiver);
    const logger = createMemoryLogger();
    const notifier = createNotifier({
      targets: [{ name: "webhook-1", kind: "webhook", url: receiver.url("/hook") }],
      claim: () => Promise.reject(new Error("connection refused")),
      logger: logger as unknown as Pick<Logger, "warn" | "error">,
    });
    notifier.enqueue([makeTransition("fired")]);
    await notifier.drain();
    expect(receiver.received.map((r) => (r.body as { transitions: { type: string }[] }).transitions.map((t) => t.type))).toEqual([["fired"]]);
    expect(logger.entries.map((e) => [e.level, e.message, e.fields])).toEqual([
      [
        "error",
        "the notification ledger failed; sent anyway, once more if it had been sent",
        { error: "connection refused", target: "webhook-1", alert: "DATA_LOSS|east->west|orders|2|1200", transition: "fired" },
      ],
    ]);
  });
});
