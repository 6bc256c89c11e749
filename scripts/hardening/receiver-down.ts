/**
 * A webhook target that is down for real (issue 15 item 7): nothing listens on its port for
 * `minutes` while a poll loop enqueues one batch every `cycleSeconds`; then a receiver starts on the
 * port. Reports the peak queue, what was dropped, what was delivered (and in what order), how long
 * enqueue took and how late the loop's timers ran (event-loop delay).
 */
import { createServer } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createNotifier } from "@/lib/alerts/notifiers";
import type { AlertTransition } from "@/lib/alerts/types";
import { findFreePort } from "@/lib/sandbox/free-port";

/** What a receiver-down run saw. */
export interface ReceiverDownReport {
  downSeconds: number;
  batchesEnqueued: number;
  peakPending: number;
  dropped: number;
  delivered: number;
  /** Delivered in the order enqueued, and exactly the first batch plus the newest ones the bound kept. */
  deliveredInOrder: boolean;
  /** From the receiver's start until the queue was empty. */
  catchUpSeconds: number;
  maxEnqueueMs: number;
  /** The loop's timer lateness while the target was down (perf_hooks event-loop delay). */
  eventLoopDelayMaxMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function transitionFor(i: number): AlertTransition[] {
  const at = Date.now();
  const alert = {
    id: `hardening-${i}`,
    key: `DATA_LOSS|east->west|orders|${i}|0`,
    type: "DATA_LOSS" as const,
    severity: "critical" as const,
    state: "firing" as const,
    acknowledged: null,
    flow: "east->west",
    cluster: "east",
    topic: "orders",
    partition: i,
    group: null,
    summary: `receiver-down run, batch ${i}`,
    evidence: { batch: String(i) },
    firstSeen: at,
    lastSeen: at,
    resolvedAt: null,
  };
  return [{ type: "fired", alert }];
}

/** Runs the outage with the notifier's defaults (100 batches waiting, 1 s → 60 s backoff, retried 30 minutes while down). */
export async function runReceiverDown(minutes: number, cycleSeconds: number, log: (line: string) => void): Promise<ReceiverDownReport> {
  const port = await findFreePort();
  const received: number[] = [];
  const notifier = createNotifier({ targets: [{ name: "down-webhook", kind: "webhook", url: `http://127.0.0.1:${port}/hook` }] });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const downUntil = Date.now() + minutes * 60_000;
  let enqueued = 0;
  let peakPending = 0;
  let maxEnqueueMs = 0;
  while (Date.now() < downUntil) {
    const started = performance.now();
    notifier.enqueue(transitionFor(enqueued));
    maxEnqueueMs = Math.max(maxEnqueueMs, performance.now() - started);
    enqueued += 1;
    peakPending = Math.max(peakPending, notifier.countPending()["down-webhook"] ?? 0);
    if (enqueued % 15 === 0) log(`  ${Math.round((downUntil - Date.now()) / 1000)} s of outage left; ${notifier.countPending()["down-webhook"]} batches waiting`);
    await sleep(cycleSeconds * 1000);
  }
  delay.disable();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { transitions: { alert: { evidence: { batch: string } } }[] };
      received.push(Number(body.transitions[0]!.alert.evidence.batch));
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const back = Date.now();
  log(`  receiver up on :${port}; waiting for the queue to drain`);
  await notifier.drain();
  const catchUpSeconds = (Date.now() - back) / 1000;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const dropped = notifier.countDropped()["down-webhook"] ?? 0;
  const kept = Array.from({ length: enqueued - 1 - dropped }, (_, i) => dropped + 1 + i);
  return {
    downSeconds: minutes * 60,
    batchesEnqueued: enqueued,
    peakPending,
    dropped,
    delivered: received.length,
    deliveredInOrder: JSON.stringify(received) === JSON.stringify([0, ...kept]),
    catchUpSeconds,
    maxEnqueueMs: Number(maxEnqueueMs.toFixed(2)),
    eventLoopDelayMaxMs: Number((delay.max / 1e6).toFixed(1)),
  };
}
