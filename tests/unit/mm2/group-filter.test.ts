import { describe, expect, it } from "vitest";
import { compileGroupFilter, readGroupFilterSettings } from "@/lib/mm2";

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

  it("MirrorCheckpointConfigTest.testGroupMatching: groups=group1 takes group1 only", () => {
    const filter = compileGroupFilter("group1");
    expect([filter.matches("group1"), filter.matches("group2")]).toEqual([true, false]);
  });
});

describe("readGroupFilterSettings", () => {
  it("reads groups and groups.exclude, with MM2's defaults", () => {
    expect(readGroupFilterSettings({})).toEqual({ groups: ".*", groupsExclude: "console-consumer-.*, connect-.*, __.*" });
    expect(readGroupFilterSettings({ groups: "app-.*", "groups.exclude": "app-test" })).toEqual({ groups: "app-.*", groupsExclude: "app-test" });
  });

  it("applies the deprecated groups.blacklist only when groups.exclude is not set (ConfigUtils.translateDeprecatedConfigs)", () => {
    expect(readGroupFilterSettings({ "groups.blacklist": "group-7" }).groupsExclude).toBe("group-7");
    expect(readGroupFilterSettings({ "groups.blacklist": "group-7", "groups.exclude": "group-8" }).groupsExclude).toBe("group-8");
  });
});
