import { describe, expect, it } from "vitest";
import { chooseVersion, supportedApis } from "@/lib/kafka/api-versions";

describe("chooseVersion", () => {
  it("picks the newest version inside the broker's range", () => {
    expect(chooseVersion(supportedApis.Metadata, { name: "Metadata", minVersion: 0, maxVersion: 13 })?.version).toBe(12);
    expect(chooseVersion(supportedApis.Fetch, { name: "Fetch", minVersion: 4, maxVersion: 12 })?.version).toBe(12);
    expect(chooseVersion(supportedApis.ListOffsets, { name: "ListOffsets", minVersion: 1, maxVersion: 7 })?.version).toBe(7);
  });

  it("returns null when the broker is too old or does not offer the API", () => {
    expect(chooseVersion(supportedApis.OffsetFetch, { name: "OffsetFetch", minVersion: 1, maxVersion: 7 })).toBeNull();
    expect(chooseVersion(supportedApis.OffsetFetch, undefined)).toBeNull();
  });
});
