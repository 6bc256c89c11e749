import { describe, expect, it } from "vitest";
import { combineTopicRefreshMs, readTopicRefreshMs } from "@/lib/mm2";

describe("readTopicRefreshMs", () => {
  it("reads MirrorSourceConfig's refresh.topics settings: 600 s by default, the interval given, null when off", () => {
    expect(readTopicRefreshMs({})).toBe(600_000);
    expect(readTopicRefreshMs({ "refresh.topics.interval.seconds": "20" })).toBe(20_000);
    expect(readTopicRefreshMs({ "refresh.topics.enabled": " FALSE ", "refresh.topics.interval.seconds": "20" })).toBeNull();
    // A negative interval disables the refresh, as MirrorSourceConfig.refreshTopicsInterval does for "off".
    expect(readTopicRefreshMs({ "refresh.topics.interval.seconds": "-1" })).toBeNull();
  });

  it("takes MM2's default for a value Connect would reject", () => {
    expect(readTopicRefreshMs({ "refresh.topics.interval.seconds": "ten" })).toBe(600_000);
  });
});

describe("combineTopicRefreshMs", () => {
  it("keeps the longest refresh of a flow's connectors; one with refresh off lengthens nothing", () => {
    expect(combineTopicRefreshMs(20_000, 600_000)).toBe(600_000);
    expect(combineTopicRefreshMs(null, 20_000)).toBe(20_000);
    expect(combineTopicRefreshMs(20_000, null)).toBe(20_000);
    expect(combineTopicRefreshMs(null, null)).toBeNull();
  });
});
