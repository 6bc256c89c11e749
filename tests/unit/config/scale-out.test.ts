import { describe, expect, it } from "vitest";
import { configSchema } from "@/lib/config/schema";

const clusters = [
  { alias: "east", bootstrap: "k1:9092" },
  { alias: "west", bootstrap: "k2:9092" },
];

function issuesOf(input: unknown): string[] {
  const result = configSchema.safeParse(input);
  return (result.error?.issues ?? []).map((i) => `${i.path.map(String).join(".")}: ${i.message}`);
}

describe("config scaleOut", () => {
  it("is absent by default: one process owns everything", () => {
    expect(configSchema.parse({ clusters }).scaleOut).toBeUndefined();
  });

  it("fills shards, groupId, topic and the session timeout with their defaults", () => {
    expect(configSchema.parse({ clusters, scaleOut: { homeCluster: "west" } }).scaleOut).toEqual({
      homeCluster: "west",
      shards: 12,
      groupId: "gapwatch-collectors",
      topic: "__gapwatch_shards",
      sessionTimeoutMs: 30_000,
    });
  });

  it("names the home cluster and the configured aliases when the home cluster is not configured", () => {
    expect(issuesOf({ clusters, scaleOut: { homeCluster: "north" } })).toEqual([
      'scaleOut.homeCluster: home cluster "north" is not in clusters ("east", "west")',
    ]);
  });

  it("rejects a missing home cluster, zero shards, a bad topic name and a session timeout below Kafka's minimum", () => {
    expect(issuesOf({ clusters, scaleOut: {} })).toEqual(["scaleOut.homeCluster: Invalid input: expected string, received undefined"]);
    expect(issuesOf({ clusters, scaleOut: { homeCluster: "east", shards: 0 } })).toEqual(["scaleOut.shards: Too small: expected number to be >=1"]);
    expect(issuesOf({ clusters, scaleOut: { homeCluster: "east", topic: "no spaces" } })).toEqual(["scaleOut.topic: must be a valid Kafka topic name"]);
    expect(issuesOf({ clusters, scaleOut: { homeCluster: "east", sessionTimeoutMs: 5999 } })).toEqual([
      "scaleOut.sessionTimeoutMs: Too small: expected number to be >=6000",
    ]);
    expect(issuesOf({ clusters, scaleOut: { homeCluster: "east", partitions: 3 } })).toEqual(['scaleOut: Unrecognized key: "partitions"']);
  });
});
