import { describe, expect, it } from "vitest";
import { buildWebhookPayload } from "@/lib/alerts/notifiers/webhook";
import { makeAlert, makeTransition, T } from "../helpers";

describe("buildWebhookPayload", () => {
  it("carries every transition with its full alert record", () => {
    expect(buildWebhookPayload([makeTransition("refired")], { receiver: "hook", externalUrl: null, sentAt: T, firingEndsAt: T + 240_000 })).toEqual({
      version: "1",
      source: "gapwatch",
      sentAt: "2025-01-15T03:00:00.000Z",
      externalUrl: null,
      transitions: [{ type: "refired", alert: makeAlert(), shownState: "firing" }],
    });
  });

  it("says what a resolved loss means: it only stopped growing", () => {
    const resolved = makeTransition("resolved", { state: "resolved", resolvedAt: T + 90_000 });
    const payload = buildWebhookPayload([resolved], { receiver: "hook", externalUrl: null, sentAt: T, firingEndsAt: T + 240_000 });
    expect(payload.transitions).toEqual([
      {
        type: "resolved",
        alert: makeAlert({ state: "resolved", resolvedAt: T + 90_000 }),
        shownState: "stopped growing",
        meaning: "stopped growing: no new loss seen; the lost records stay lost until restored by hand",
      },
    ]);
  });
});
