import { describe, expect, it } from "vitest";
import { buildSlackPayload } from "@/lib/alerts/notifiers/slack";
import { makeTransition, T } from "../helpers";

const context = { receiver: "slack", externalUrl: "https://gapwatch.example.com", sentAt: T, firingEndsAt: T + 240_000 };

describe("buildSlackPayload", () => {
  it("puts the one-line summary in text and a mrkdwn section per transition with a link", () => {
    expect(buildSlackPayload([makeTransition("fired")], context)).toEqual({
      text: ":rotating_light: *FIRED* critical DATA_LOSS (east->west · east): 500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699)",
      blocks: [
        {
          type: "section",
          text: {
            type: "mrkdwn",
            text: ":rotating_light: *FIRED* critical DATA_LOSS (east->west · east): 500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699) <https://gapwatch.example.com/alerts/0123456789abcdef|open>",
          },
        },
      ],
    });
  });

  it("summarises a batch and stays under Slack's block limit", () => {
    const transitions = Array.from({ length: 45 }, (_, i) => makeTransition(i % 2 === 0 ? "fired" : "resolved", { id: `a${i}` }));
    const payload = buildSlackPayload(transitions, { ...context, externalUrl: null });
    expect(payload.text).toBe("Gapwatch: 45 alert changes");
    expect(payload.blocks).toHaveLength(41);
    expect(payload.blocks.at(-1)).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: "…and 5 more" }] });
  });

  it("says a resolved loss only stopped growing, and a resolved failure resolved", () => {
    const loss = buildSlackPayload([makeTransition("resolved")], { ...context, externalUrl: null });
    expect(loss.text).toBe(
      ":warning: *STOPPED GROWING* critical DATA_LOSS (east->west · east): 500 records of orders/2 were deleted at east before MM2 copied them " +
        "(offsets 1200–1699) — stopped growing: no new loss seen; the lost records stay lost until restored by hand",
    );
    const failure = buildSlackPayload([makeTransition("resolved", { type: "TASK_FAILED", summary: "task 0 FAILED" })], { ...context, externalUrl: null });
    expect(failure.text).toBe(":white_check_mark: *RESOLVED* critical TASK_FAILED (east->west · east): task 0 FAILED");
  });
});
