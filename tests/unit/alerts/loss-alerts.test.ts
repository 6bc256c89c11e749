import { describe, expect, it } from "vitest";
import { describeTransitionLine } from "@/lib/alerts/loss-alerts";
import { makeTransition } from "./helpers";

describe("describeTransitionLine (the alert timeline)", () => {
  it("says a loss that resolved stopped growing, and keeps fired and resolved for the rest", () => {
    const summary = "500 records of orders/2 were deleted at east before MM2 copied them (offsets 1200–1699)";
    expect(describeTransitionLine(makeTransition("fired"))).toBe(`DATA_LOSS fired: ${summary}`);
    expect(describeTransitionLine(makeTransition("resolved", { state: "resolved" }))).toBe(`DATA_LOSS stopped growing: ${summary}`);
    expect(describeTransitionLine(makeTransition("resolved", { type: "UNCLEAN_TRUNCATION", state: "resolved", summary: "20 lost" }))).toBe(
      "UNCLEAN_TRUNCATION stopped growing: 20 lost",
    );
    expect(describeTransitionLine(makeTransition("resolved", { type: "TASK_FAILED", state: "resolved", summary: "task 0 failed" }))).toBe(
      "TASK_FAILED resolved: task 0 failed",
    );
  });
});
