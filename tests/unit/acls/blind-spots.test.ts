import { describe, expect, it } from "vitest";
import { countBlindSpots, deriveBlindSpots } from "@/lib/acls/blind-spots";
import { makeCluster, makeFlow, makeSnapshot } from "../detect/fixtures";

const principals = { east: "User:gapwatch", west: "User:gapwatch" };

describe("deriveBlindSpots", () => {
  it("finds none when no read was denied (quiet when healthy)", () => {
    expect(deriveBlindSpots(makeSnapshot(), principals)).toEqual([]);
  });

  it("names the figure that is off, for which topics, and the exact ACL command that fixes it", () => {
    const east = makeCluster("east", {
      denied: [
        { api: "DescribeConfigs", resourceType: "topic", resource: "payments", error: "TOPIC_AUTHORIZATION_FAILED" },
        { api: "DescribeConfigs", resourceType: "topic", resource: "orders", error: "TOPIC_AUTHORIZATION_FAILED" },
        { api: "DescribeConfigs", resourceType: "cluster", resource: "kafka-cluster", error: "CLUSTER_AUTHORIZATION_FAILED" },
        { api: "OffsetFetch", resourceType: "group", resource: "billing", error: "GROUP_AUTHORIZATION_FAILED" },
      ],
    });
    const spots = deriveBlindSpots(makeSnapshot({ clusters: [east, makeCluster("west")] }), principals);
    expect(spots.map((s) => [s.cluster, s.kind, s.resources, s.error, s.acl])).toEqual([
      ["east", "topic-configs", ["orders", "payments"], "TOPIC_AUTHORIZATION_FAILED", "DescribeConfigs on topic * (literal)"],
      ["east", "broker-configs", ["kafka-cluster"], "CLUSTER_AUTHORIZATION_FAILED", "DescribeConfigs on cluster kafka-cluster"],
      ["east", "group-offsets", ["billing"], "GROUP_AUTHORIZATION_FAILED", "Describe on group * (literal)"],
    ]);
    expect(spots[0]!.hides).toContain("sync-gap DATA_LOSS");
    expect(spots[0]!.fix).toBe("kafka-acls.sh --bootstrap-server east:9092 --add --allow-principal User:gapwatch --operation DescribeConfigs --topic '*'");
    expect(spots[2]!.fix).toBe("kafka-acls.sh --bootstrap-server east:9092 --add --allow-principal User:gapwatch --operation Describe --group '*'");
  });

  it("reads refused Fetches of MM2's internal topics from the flows' errors, on the cluster read", () => {
    const flow = makeFlow({
      errors: [
        "reading east/mm2-offset-syncs.west.internal/0: TOPIC_AUTHORIZATION_FAILED",
        "reading west/east.checkpoints.internal/0: OFFSET_OUT_OF_RANGE",
        "reading west/east.heartbeats/0: connect ECONNREFUSED",
      ],
    });
    const spots = deriveBlindSpots(makeSnapshot({ flows: [flow] }), principals);
    expect(spots.map((s) => [s.cluster, s.kind, s.apis, s.resources])).toEqual([["east", "topic-records", ["Fetch"], ["mm2-offset-syncs.west.internal"]]]);
    expect(spots[0]!.fix).toContain("--operation Read --topic '*'");
    expect(spots[0]!.hides).toContain("exact DATA_LOSS range");
  });

  it("names topics hidden from Metadata (no Describe) as topic-metadata, fixed by Read (which implies Describe), and counts them", () => {
    const west = makeCluster("west", { denied: [{ api: "Metadata", resourceType: "topic", resource: "east.checkpoints.internal", error: "TOPIC_AUTHORIZATION_FAILED" }] });
    const spots = deriveBlindSpots(makeSnapshot({ clusters: [makeCluster("east"), west] }));
    expect(spots.map((s) => [s.kind, s.acl])).toEqual([["topic-metadata", "Read on topic * (literal)"]]);
    // Without a known principal the command says so instead of guessing one.
    expect(spots[0]!.fix).toContain("--allow-principal 'User:<gapwatch principal>' --operation Read --topic '*'");
    expect(spots[0]!.hides).toContain("hides them from Metadata");
    expect(countBlindSpots(spots)).toEqual([{ cluster: "west", kind: "topic-metadata", resources: 1 }]);
  });
});
