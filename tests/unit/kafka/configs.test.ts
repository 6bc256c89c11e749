import { describe, expect, it } from "vitest";
import { parseBooleanConfig, reshapeConfigs } from "@/lib/kafka/configs";
import type { RawDescribeConfigsResponse } from "@/lib/kafka/types";

function config(name: string, value: string | null): RawDescribeConfigsResponse["results"][number]["configs"][number] {
  return { name, value, readOnly: false, configSource: 1, isSensitive: false, synonyms: [], configType: 2, documentation: null };
}

describe("reshapeConfigs", () => {
  it("keeps values as strings per topic and per-topic errors by name", () => {
    const response: RawDescribeConfigsResponse = {
      throttleTimeMs: 0,
      results: [
        { errorCode: 0, errorMessage: null, resourceType: 2, resourceName: "orders", configs: [config("retention.ms", "123456"), config("cleanup.policy", "compact"), config("secret", null)] },
        { errorCode: 3, errorMessage: "Topic nope does not exist.", resourceType: 2, resourceName: "nope", configs: [] },
      ],
    };
    expect(Object.fromEntries(reshapeConfigs(["orders", "nope", "missing"], response))).toEqual({
      orders: { "retention.ms": "123456", "cleanup.policy": "compact" },
      nope: { error: "UNKNOWN_TOPIC_OR_PARTITION: Topic nope does not exist." },
      missing: { error: "MISSING_FROM_RESPONSE" },
    });
  });
});

describe("parseBooleanConfig", () => {
  it("reads true/false and returns null for anything else", () => {
    expect(parseBooleanConfig("true")).toBe(true);
    expect(parseBooleanConfig(" FALSE ")).toBe(false);
    expect(parseBooleanConfig(undefined)).toBeNull();
    expect(parseBooleanConfig("yes")).toBeNull();
  });
});
