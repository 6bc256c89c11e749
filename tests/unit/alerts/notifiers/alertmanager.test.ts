import { describe, expect, it } from "vitest";
import { hashToHex } from "@/lib/alerts/alert-id";
import { buildAlertLabels, buildAlertmanagerPayload } from "@/lib/alerts/notifiers/alertmanager";
import { makeTransition, T } from "../helpers";

const context = { receiver: "pager", externalUrl: "https://gapwatch.example.com", sentAt: T + 5_000, firingEndsAt: T + 245_000 };

describe("buildAlertmanagerPayload", () => {
  it("has the shape of Alertmanager's webhook_config payload, version 4", () => {
    const payload = buildAlertmanagerPayload([makeTransition("fired")], context);
    expect(payload).toEqual({
      version: "4",
      groupKey: '{}:{receiver="pager"}',
      truncatedAlerts: 0,
      status: "firing",
      receiver: "pager",
      groupLabels: {},
      commonLabels: {
        alertname: "DATA_LOSS",
        severity: "critical",
        flow: "east->west",
        cluster: "east",
        topic: "orders",
        partition: "2",
        gapwatch_key: "DATA_LOSS|east->west|orders|2|1200",
      },
      commonAnnotations: {
        summary: "500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699)",
        description: "firstLostOffset=1200, lastLostOffset=1699, lostCount=500",
      },
      externalURL: "https://gapwatch.example.com",
      alerts: [
        {
          status: "firing",
          labels: expect.objectContaining({ alertname: "DATA_LOSS", partition: "2" }) as unknown,
          annotations: expect.objectContaining({ summary: expect.stringContaining("orders/2") as unknown }) as unknown,
          startsAt: "2025-01-15T03:00:00.000Z",
          endsAt: "0001-01-01T00:00:00Z",
          generatorURL: "https://gapwatch.example.com/alerts/0123456789abcdef",
          fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
        },
      ],
    });
  });

  it("reports a resolved batch with endsAt, and only the labels all alerts share as common", () => {
    const resolved = makeTransition("resolved", { state: "resolved", resolvedAt: T + 120_000 });
    const other = makeTransition("resolved", { state: "resolved", resolvedAt: T + 60_000, key: "TASK_STALLED|east->west", type: "TASK_STALLED", topic: null, partition: null });
    const payload = buildAlertmanagerPayload([resolved, other], { ...context, externalUrl: null });
    expect(payload.status).toBe("resolved");
    expect(payload.alerts.map((a) => [a.status, a.endsAt, a.generatorURL])).toEqual([
      ["resolved", "2025-01-15T03:02:00.000Z", ""],
      ["resolved", "2025-01-15T03:01:00.000Z", ""],
    ]);
    expect(payload.commonLabels).toEqual({ severity: "critical", flow: "east->west", cluster: "east" });
    expect(payload.externalURL).toBe("");
  });

  it("fingerprints the label set, independent of label order, and stable across calls", () => {
    const [a] = buildAlertmanagerPayload([makeTransition("fired")], context).alerts;
    const [b] = buildAlertmanagerPayload([makeTransition("resolved", { state: "resolved", resolvedAt: T + 1 })], context).alerts;
    expect(a?.fingerprint).toBe(b?.fingerprint);
    const labels = buildAlertLabels(makeTransition().alert);
    const sorted = Object.keys(labels).sort().map((name) => `${name}=${labels[name]}`).join("\u00ff");
    expect(a?.fingerprint).toBe(hashToHex(sorted));
  });
});
