import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNotifier, type NotifierOptions } from "@/lib/alerts/notifiers/delivery-queue";
import { createSqliteStore, type Store } from "@/lib/store";
import { createMemoryLogger, makeTransition, reply, startReceiver, T } from "../helpers";

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver | null = null;
let dir = "";
let stores: Store[] = [];
/** Opens the store on this test's file: called again, it is a restart of Gapwatch on the same database. */
const openStore = () => {
  const store = createSqliteStore(path.join(dir, "gapwatch.db"));
  stores.push(store);
  return store;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-outbox-"));
});
afterEach(async () => {
  await receiver?.close();
  receiver = null;
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const typesReceived = () => receiver!.received.map((r) => (r.body as { transitions: { type: string; alert: { id: string } }[] }).transitions.map((t) => `${t.type} ${t.alert.id}`));
const notifierOn = (store: Store, extra: Partial<NotifierOptions> = {}) =>
  createNotifier({ targets: [{ name: "webhook-1", kind: "webhook", url: receiver!.url("/hook") }], outbox: store, ...extra });

describe("createNotifier with the store's notification outbox", () => {
  it("delivers, after a crash between the alerts' write and the send, each pending row exactly once, and never again", async () => {
    receiver = await startReceiver((_, res) => reply(res, 200));
    const fired = makeTransition("fired", { id: "00000000000000a1" });
    const resolved = makeTransition("resolved", { id: "00000000000000b2", key: "DATA_LOSS|east->west|orders|3|0", state: "resolved", resolvedAt: T + 70_000 });
    const before = openStore();
    const dying = notifierOn(before);
    const queued = await before.saveAlerts([fired.alert, resolved.alert], dying.listDeliveries([fired, resolved, makeTransition("updated")], T));
    expect(queued.map((q) => [q.alertId, q.transition, q.at - T, q.target, q.queuedAt - T])).toEqual([
      ["00000000000000a1", "fired", 0, "webhook-1", 0],
      ["00000000000000b2", "resolved", 70_000, "webhook-1", 0],
    ]);
    // The process dies here: the rows are stored, nothing was sent (a stopped notifier posts nothing).
    dying.enqueueQueued(queued);
    dying.stop();
    await dying.drain();
    expect(receiver.received).toEqual([]);
    await before.close();
    stores = stores.filter((s) => s !== before);

    const after = openStore();
    const restarted = notifierOn(after);
    await restarted.drain();
    expect(typesReceived()).toEqual([["fired 00000000000000a1", "resolved 00000000000000b2"]]);
    await expect.poll(async () => (await after.listQueuedNotifications()).length).toBe(0);
    // The restarted process judging the same transitions again queues nothing: the ledger holds their claims.
    restarted.enqueueQueued(await after.saveAlerts([fired.alert], restarted.listDeliveries([fired, resolved], T)));
    const again = notifierOn(after);
    await Promise.all([restarted.drain(), again.drain()]);
    expect(typesReceived()).toEqual([["fired 00000000000000a1", "resolved 00000000000000b2"]]);
  });

  it("a sharing collector sends no pending row at start; it takes over the held shards' rows no live collector holds, each once", async () => {
    receiver = await startReceiver((_, res) => reply(res, 200));
    const store = openStore();
    const planner = createNotifier({ targets: [{ name: "webhook-1", kind: "webhook", url: receiver.url("/hook") }] });
    const east = makeTransition("fired", { id: "00000000000000e1", key: "DATA_LOSS|east->west|orders|3|0" });
    const south = makeTransition("fired", { id: "00000000000000f2", key: "DATA_LOSS|south->west|orders|1|0" });
    // Written by a collector that died before sending them: its lease ran out a moment ago.
    const queued = await store.saveAlerts([east.alert, south.alert], planner.listDeliveries([east, south], T), { owner: "collector-dead", until: Date.now() - 1 });
    expect(queued.map((q) => q.lease?.owner)).toEqual(["collector-dead", "collector-dead"]);
    const gaining = notifierOn(store, { lease: { owner: "collector-b", ms: 60_000 } });
    await gaining.drain();
    expect(receiver.received).toEqual([]);
    gaining.takeOverPending((t) => t.alert.key.includes("|east->west|"));
    await gaining.drain();
    expect(typesReceived()).toEqual([["fired 00000000000000e1"]]);
    await expect.poll(async () => (await store.listQueuedNotifications()).map((r) => [r.alertId, r.lease?.owner])).toEqual([["00000000000000f2", "collector-dead"]]);
    // Taking over the same shard again finds nothing left to send for it.
    gaining.takeOverPending((t) => t.alert.key.includes("|east->west|"));
    await gaining.drain();
    expect(typesReceived()).toEqual([["fired 00000000000000e1"]]);
  });

  it("a rebalance leaves a row retrying against a down target with the collector that queued it: delivered once, by it", async () => {
    // Down for the first 5 tries (503), 250 ms apart: the row is in retry for over a second, twice its 500 ms lease.
    receiver = await startReceiver((n, res) => reply(res, n < 5 ? 503 : 200));
    const store = openStore();
    const transition = makeTransition("fired", { id: "00000000000000a7", key: "DATA_LOSS|east->west|orders|3|0" });
    const retrying = { baseDelayMs: 250, maxDelayMs: 250, maxAttempts: 10 };
    const previousOwner = notifierOn(store, { lease: { owner: "collector-a", ms: 500 }, ...retrying });
    previousOwner.enqueueQueued(await store.saveAlerts([transition.alert], previousOwner.listDeliveries([transition], T), previousOwner.leaseFor(Date.now())));
    // The shard moved to collector-b, which looks for rows to take over every 100 ms while collector-a retries.
    const newOwner = notifierOn(store, { lease: { owner: "collector-b", ms: 500 } });
    const started = Date.now();
    while (Date.now() - started < 2500) {
      newOwner.takeOverPending(() => true);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.all([previousOwner.drain(), newOwner.drain()]);
    expect(receiver.received).toHaveLength(6);
    expect(typesReceived()).toEqual(Array.from({ length: 6 }, () => ["fired 00000000000000a7"]));
    await expect.poll(async () => (await store.listQueuedNotifications()).length).toBe(0);
    previousOwner.stop();
    newOwner.stop();
  });

  it("a row whose collector died while retrying is taken over once its lease ran out, and sent once", async () => {
    receiver = await startReceiver((n, res) => reply(res, n === 0 ? 503 : 200));
    const store = openStore();
    const transition = makeTransition("fired", { id: "00000000000000a8", key: "DATA_LOSS|east->west|orders|3|0" });
    const dying = notifierOn(store, { lease: { owner: "collector-a", ms: 400 }, baseDelayMs: 60_000 });
    dying.enqueueQueued(await store.saveAlerts([transition.alert], dying.listDeliveries([transition], T), dying.leaseFor(Date.now())));
    await expect.poll(() => receiver!.received.length).toBe(1);
    // Killed while waiting for its retry: nothing renews the lease any more.
    dying.stop();
    const newOwner = notifierOn(store, { lease: { owner: "collector-b", ms: 400 } });
    newOwner.takeOverPending(() => true);
    await newOwner.drain();
    expect(receiver.received).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    newOwner.takeOverPending(() => true);
    await newOwner.drain();
    expect(receiver.received).toHaveLength(2);
    await expect.poll(async () => (await store.listQueuedNotifications()).length).toBe(0);
    newOwner.stop();
  });

  it("queues a row read at start once although the cycle's write hands it over too, one batch per target and cycle", async () => {
    receiver = await startReceiver((_, res) => reply(res, 200));
    const store = openStore();
    // Plans the deliveries only (no outbox: it delivers nothing by itself).
    const planner = createNotifier({ targets: [{ name: "webhook-1", kind: "webhook", url: receiver.url("/hook") }] });
    const first = await store.saveAlerts([], planner.listDeliveries([makeTransition("fired", { id: "0000000000000001" })], T));
    const second = await store.saveAlerts([], planner.listDeliveries([makeTransition("fired", { id: "0000000000000002" })], T + 2000));
    const notifier = notifierOn(store);
    notifier.enqueueQueued([...first, ...second]);
    await notifier.drain();
    expect(typesReceived()).toEqual([["fired 0000000000000001"], ["fired 0000000000000002"]]);
  });

  it("marks a batch dropped when its retries give up, or when the full queue pushes it out: neither is sent after a restart", async () => {
    receiver = await startReceiver((n, res) => (n === 0 ? void setTimeout(() => reply(res, 200), 300) : reply(res, 400)));
    const store = openStore();
    const logger = createMemoryLogger();
    const notifier = notifierOn(store, { maxQueue: 1, maxAttempts: 1, logger: logger as unknown as Pick<Logger, "warn" | "error"> });
    for (const [i, id] of ["0000000000000001", "0000000000000002", "0000000000000003"].entries()) {
      notifier.enqueueQueued(await store.saveAlerts([], notifier.listDeliveries([makeTransition("fired", { id })], T + i * 1000)));
    }
    await notifier.drain();
    // 1 in flight (answered 200), 2 pushed out by 3 (queue bound 1), 3 rejected with 400.
    expect(typesReceived()).toEqual([["fired 0000000000000001"], ["fired 0000000000000003"]]);
    expect(logger.entries.map((e) => e.message)).toEqual(["alert notification queue full; dropped the oldest batch", "alert notification dropped after retries"]);
    await expect.poll(async () => (await store.listQueuedNotifications()).length).toBe(0);
    await notifierOn(store).drain();
    expect(receiver.received).toHaveLength(2);
  });

  it("drops, naming it, a pending row whose target is no longer configured", async () => {
    receiver = await startReceiver((_, res) => reply(res, 200));
    const store = openStore();
    await store.saveAlerts([], createNotifier({ targets: [{ name: "webhook-1", kind: "webhook", url: receiver.url("/hook") }] }).listDeliveries([makeTransition("fired")], T));
    const logger = createMemoryLogger();
    const renamed = createNotifier({
      targets: [{ name: "webhook-2", kind: "webhook", url: receiver.url("/hook") }],
      outbox: store,
      logger: logger as unknown as Pick<Logger, "warn" | "error">,
    });
    await renamed.drain();
    expect(receiver.received).toEqual([]);
    expect(logger.entries.map((e) => [e.message, e.fields])).toEqual([
      ["queued notifications for a target no longer configured; dropped", { target: "webhook-1", dropped: ["fired DATA_LOSS|east->west|orders|2|1200"] }],
    ]);
    await expect.poll(async () => (await store.listQueuedNotifications()).length).toBe(0);
  });
});
