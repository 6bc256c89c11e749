import { describe, expect, it } from "vitest";
import { readSourceTaskSettings } from "@/lib/mm2";

describe("readSourceTaskSettings", () => {
  it("takes MM2's defaults when nothing is set: offset syncs on, auto.offset.reset=earliest", () => {
    expect(readSourceTaskSettings({})).toEqual({ offsetSyncsEnabled: true, autoOffsetReset: "earliest" });
  });

  it("reads emit.offset-syncs.enabled=false in any case, and keeps syncs on for any other value", () => {
    expect(readSourceTaskSettings({ "emit.offset-syncs.enabled": " FALSE " }).offsetSyncsEnabled).toBe(false);
    expect(readSourceTaskSettings({ "emit.offset-syncs.enabled": "true" }).offsetSyncsEnabled).toBe(true);
  });

  it("lets source.consumer.auto.offset.reset win over consumer.auto.offset.reset, as sourceConsumerConfig applies them", () => {
    expect(readSourceTaskSettings({ "consumer.auto.offset.reset": "latest" }).autoOffsetReset).toBe("latest");
    expect(readSourceTaskSettings({ "consumer.auto.offset.reset": "latest", "source.consumer.auto.offset.reset": "earliest" }).autoOffsetReset).toBe("earliest");
    expect(readSourceTaskSettings({ "source.consumer.auto.offset.reset": "Latest" }).autoOffsetReset).toBe("latest");
  });
});
