import { ResponseError, TimeoutError } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { isEveryBrokerFailed, partialResponseOf, withDeadline } from "@/lib/kafka/broker-io";

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

describe("isEveryBrokerFailed", () => {
  it("is true only when every broker of the metadata failed (a cluster that does not answer)", () => {
    expect(isEveryBrokerFailed([1], new Set([1]))).toBe(true);
    expect(isEveryBrokerFailed([1, 2, 3], new Set([3, 2, 1]))).toBe(true);
    // Broker 3 down while 1 and 2 answer: its partitions fail, the cluster is reachable.
    expect(isEveryBrokerFailed([1, 2, 3], new Set([3]))).toBe(false);
    expect(isEveryBrokerFailed([1, 2, 3], new Set())).toBe(false);
  });

  it("counts a cluster whose brokers are not known yet as unreachable when its read failed", () => {
    expect(isEveryBrokerFailed([], new Set([1]))).toBe(true);
  });
});
