import { ResponseError, TimeoutError } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { partialResponseOf, withDeadline } from "@/lib/kafka/broker-io";

describe("partialResponseOf", () => {
  it("returns the response platformatic attaches to a ResponseError", () => {
    const response = { topics: [] };
    expect(partialResponseOf(new ResponseError(2, 9, { "/topics/0/partitions/0": [6, null] }, response))).toBe(response);
  });

  it("returns undefined for other errors", () => {
    expect(partialResponseOf(new TimeoutError("Request timed out"))).toBeUndefined();
    expect(partialResponseOf("boom")).toBeUndefined();
  });
});

describe("withDeadline", () => {
  it("rejects with a TimeoutError when the promise does not settle in time", async () => {
    await expect(withDeadline(new Promise(() => undefined), 20, "Request")).rejects.toBeInstanceOf(TimeoutError);
    await expect(withDeadline(Promise.resolve(7), 1000, "Request")).resolves.toBe(7);
  });
});
