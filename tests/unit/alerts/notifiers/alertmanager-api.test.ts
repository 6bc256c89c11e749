import { afterEach, describe, expect, it, vi } from "vitest";
import { buildAlertmanagerApiPayload } from "@/lib/alerts/notifiers/alertmanager-api";
import { createNotifier } from "@/lib/alerts/notifiers/delivery-queue";
import { makeAlert, makeTransition, reply, startReceiver, T } from "../helpers";

const labels = {
  alertname: "DATA_LOSS",
  severity: "critical",
  flow: "east->west",
  cluster: "east",
  topic: "orders",
  partition: "2",
  gapwatch_key: "DATA_LOSS|east->west|orders|2|1200",
};
const annotations = {
  summary: "500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699)",
  description: "firstLostOffset=1200, lastLostOffset=1699, lostCount=500",
};

describe("buildAlertmanagerApiPayload", () => {
  it("posts Alertmanager's postable alerts: firing ends at firingEndsAt, resolved at resolvedAt", () => {
    const context = { receiver: "am", externalUrl: "https://gapwatch.example.com", sentAt: T + 5_000, firingEndsAt: T + 245_000 };
    const payload = buildAlertmanagerApiPayload(
      [makeTransition("fired"), makeTransition("resolved", { id: "fedcba9876543210", state: "resolved", resolvedAt: T + 90_000 })],
      context,
    );
    expect(payload).toEqual([
      {
        labels,
        annotations,
        startsAt: "2025-01-15T03:00:00.000Z",
        endsAt: "2025-01-15T03:04:05.000Z",
        generatorURL: "https://gapwatch.example.com/alerts/0123456789abcdef",
      },
      {
        labels,
        // A resolved loss says it only stopped growing (loss-alerts.ts).
        annotations: { ...annotations, resolved_means: "stopped growing: no new loss seen; the lost records stay lost until restored by hand" },
        startsAt: "2025-01-15T03:00:00.000Z",
        endsAt: "2025-01-15T03:01:30.000Z",
        generatorURL: "https://gapwatch.example.com/alerts/fedcba9876543210",
      },
    ]);
  });
});

describe("createNotifier with an Alertmanager API target", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("re-sends the firing alerts once per resend interval, with endsAt 4 intervals (or cycles) ahead", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T);
    const receiver = await startReceiver((_, res) => reply(res, 200));
    try {
      const notifier = createNotifier({ targets: [{ name: "am", kind: "alertmanager-api", url: receiver.url("/api/v2/alerts") }], resendMs: 60_000 });
      const firing = makeAlert();
      const resolved = makeAlert({ id: "fedcba9876543210", key: "DATA_LOSS|east->west|orders|3|0", state: "resolved", resolvedAt: T - 1 });
      const cycle = async (at: number, alerts: ReturnType<typeof makeAlert>[]) => {
        vi.setSystemTime(at);
        notifier.resendFiring(alerts);
        await notifier.drain();
      };
      await cycle(T, [firing, resolved]); // first cycle: sends at once
      await cycle(T + 10_000, [firing, resolved]); // 10 s later: not yet
      await cycle(T + 70_000, [firing]); // 70 s after the first re-send: again
      await cycle(T + 270_000, [firing]); // a 200 s cycle: endsAt 4 × 200 s ahead
      const bodies = receiver.received.map((r) => r.body as { labels: { gapwatch_key: string }; endsAt: string }[]);
      expect(receiver.received.map((r) => r.path)).toEqual(["/api/v2/alerts", "/api/v2/alerts", "/api/v2/alerts"]);
      expect(bodies.map((b) => b.map((a) => a.labels.gapwatch_key))).toEqual([[firing.key], [firing.key], [firing.key]]);
      expect(bodies.map((b) => b[0]!.endsAt)).toEqual([
        new Date(T + 240_000).toISOString(),
        new Date(T + 70_000 + 240_000).toISOString(),
        new Date(T + 270_000 + 800_000).toISOString(),
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("replaces a waiting re-send with the newer one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const receiver = await startReceiver((_, res) => void setTimeout(() => reply(res, 200), 50));
    try {
      const notifier = createNotifier({ targets: [{ name: "am", kind: "alertmanager-api", url: receiver.url("/api/v2/alerts") }], resendMs: 60_000 });
      for (const [i, at] of [T, T + 60_000, T + 120_000].entries()) {
        vi.setSystemTime(at);
        notifier.resendFiring([makeAlert({ summary: `re-send ${i}` })]);
      }
      expect(notifier.countPending()).toEqual({ am: 1 });
      await notifier.drain();
      const summaries = receiver.received.map((r) => (r.body as { annotations: { summary: string } }[])[0]!.annotations.summary);
      expect(summaries).toEqual(["re-send 0", "re-send 2"]);
    } finally {
      await receiver.close();
    }
  });

  it("sends nothing on resendFiring to targets of other kinds", async () => {
    const receiver = await startReceiver((_, res) => reply(res, 200));
    try {
      const notifier = createNotifier({ targets: [{ name: "hook", kind: "webhook", url: receiver.url("/") }] });
      notifier.resendFiring([makeAlert()]);
      notifier.enqueue([makeTransition("fired")]);
      await notifier.drain();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.body).toMatchObject({ version: "1", transitions: [{ type: "fired" }] });
    } finally {
      await receiver.close();
    }
  });
});
