import { describe, expect, it } from "vitest";
import { compileGroupFilter } from "@/lib/translation";

describe("compileGroupFilter (MM2's DefaultGroupFilter)", () => {
  it("by default checkpoints every group except console consumers, Connect's own and internal ones", () => {
    const filter = compileGroupFilter();
    expect(["app", "gapwatch-slow", "console-consumerx"].filter(filter.matches)).toEqual(["app", "gapwatch-slow", "console-consumerx"]);
    expect(["console-consumer-1", "connect-mm2", "__strimzi"].some(filter.matches)).toBe(false);
  });

  it("reads comma-separated pattern lists with blanks, and matches whole group ids only", () => {
    const filter = compileGroupFilter(" orders-.* , billing ", "orders-test");
    expect(filter.matches("orders-app")).toBe(true);
    expect(filter.matches("billing")).toBe(true);
    expect(filter.matches("billing-2")).toBe(false);
    expect(filter.matches("my-orders-app")).toBe(false);
    expect(filter.matches("orders-test")).toBe(false);
  });

  it("reports patterns that do not compile and lets them match nothing", () => {
    const filter = compileGroupFilter("app, (", "");
    expect(filter.invalid).toEqual(["("]);
    expect(filter.matches("app")).toBe(true);
    expect(filter.matches("(")).toBe(false);
  });
});
