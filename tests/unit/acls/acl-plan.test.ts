import { describe, expect, it } from "vitest";
import { planAcls, principalOf } from "@/lib/acls/acl-rules";
import { renderAclCommand, renderAclCommands, renderStrimziUsers, strimziUserName } from "@/lib/acls/render-acls";
import { parse, parseAllDocuments } from "yaml";

const clusters = [
  { alias: "east", bootstrap: ["east-1:9092", "east-2:9092"] },
  { alias: "west", bootstrap: ["west-1:9093"], sasl: { mechanism: "SCRAM-SHA-512" as const, username: "gapwatch", password: "x" } },
];

const summarize = (plan: ReturnType<typeof planAcls>) =>
  plan.map((c) => [c.cluster, c.rules.map((r) => `${r.operation} ${r.resourceType}:${r.resourceName}:${r.patternType}`)]);

describe("planAcls", () => {
  it("gives every cluster read-only ACLs: Describe and DescribeConfigs on the cluster, topics * and groups * (literal)", () => {
    // No Describe on topics: Read implies it (Kafka's authorizers), so it would grant nothing more.
    const everyCluster = [
      "Describe cluster:kafka-cluster:literal",
      "DescribeConfigs cluster:kafka-cluster:literal",
      "DescribeConfigs topic:*:literal",
      "Read topic:*:literal",
      "Describe group:*:literal",
    ];
    expect(summarize(planAcls({ clusters }))).toEqual([
      ["east", everyCluster],
      ["west", everyCluster],
    ]);
    // Nothing that writes or alters: no Write, Alter, AlterConfigs, Delete, IdempotentWrite, ClusterAction.
    const operations = new Set(planAcls({ clusters }).flatMap((c) => c.rules.map((r) => r.operation)));
    expect([...operations].sort()).toEqual(["Describe", "DescribeConfigs", "Read"]);
  });

  it("adds Read on the collectors' group and Create on the shard topic on the scale-out home cluster only", () => {
    const scaleOut = { homeCluster: "west", shards: 12, groupId: "gw-collectors", topic: "__gw_shards", sessionTimeoutMs: 30_000 };
    const plan = planAcls({ clusters, scaleOut });
    expect(plan[0]!.rules.some((r) => r.kind === "scale-out")).toBe(false);
    expect(plan[1]!.rules.filter((r) => r.kind === "scale-out").map((r) => `${r.operation} ${r.resourceType}:${r.resourceName}:${r.patternType}`)).toEqual([
      "Read group:gw-collectors:literal",
      "Create topic:__gw_shards:literal",
    ]);
  });

  it("names Gapwatch's principal from a SASL username, and says when it cannot (mTLS, plaintext)", () => {
    expect(clusters.map(principalOf)).toEqual(["User:<gapwatch principal>", "User:gapwatch"]);
  });
});

describe("rendering", () => {
  const plan = planAcls({ clusters });

  it("writes one kafka-acls command per ACL, wildcards quoted for the shell, and the matching --remove", () => {
    const topicRead = plan[0]!.rules.find((r) => r.operation === "Read")!;
    expect(renderAclCommand(topicRead, "User:gapwatch", plan[0]!.bootstrap)).toBe(
      "kafka-acls.sh --bootstrap-server east-1:9092,east-2:9092 --add --allow-principal User:gapwatch --operation Read --topic '*'",
    );
    expect(renderAclCommand(plan[0]!.rules[1]!, "User:gapwatch", ["b:1"], "remove")).toBe(
      "kafka-acls.sh --bootstrap-server b:1 --remove --force --allow-principal User:gapwatch --operation DescribeConfigs --cluster",
    );
    const prefixed = { ...topicRead, resourceName: "mm2-", patternType: "prefixed" as const };
    expect(renderAclCommand(prefixed, "User:CN=gap watch,O=acme", ["b:1"])).toBe(
      "kafka-acls.sh --bootstrap-server b:1 --add --allow-principal 'User:CN=gap watch,O=acme' --operation Read --topic mm2- --resource-pattern-type prefixed",
    );
    const text = renderAclCommands(plan, "User:gapwatch");
    expect(text.split("\n").filter((l) => l.startsWith("kafka-acls.sh"))).toHaveLength(10);
    expect(text.split("\n").filter((l) => l.startsWith("# cluster "))).toEqual(["# cluster east", "# cluster west"]);
  });

  it("writes one Strimzi KafkaUser per cluster with simple authorization, operations merged per resource", () => {
    const docs = parseAllDocuments(renderStrimziUsers(plan, "User:gapwatch")).map((d) => d.toJS() as Record<string, unknown>);
    expect(docs).toHaveLength(2);
    expect(docs[1]).toEqual({
      apiVersion: "kafka.strimzi.io/v1beta2",
      kind: "KafkaUser",
      metadata: { name: "gapwatch", labels: { "strimzi.io/cluster": "west" } },
      spec: {
        authorization: {
          type: "simple",
          acls: [
            { resource: { type: "cluster" }, operations: ["Describe", "DescribeConfigs"], host: "*" },
            { resource: { type: "topic", name: "*", patternType: "literal" }, operations: ["DescribeConfigs", "Read"], host: "*" },
            { resource: { type: "group", name: "*", patternType: "literal" }, operations: ["Describe"], host: "*" },
          ],
        },
      },
    });
    expect(parse(renderStrimziUsers([plan[0]!], "User:gapwatch"))).toMatchObject({ metadata: { labels: { "strimzi.io/cluster": "east" } } });
  });

  it("refuses a principal Strimzi cannot name a KafkaUser after, saying what to give", () => {
    expect(strimziUserName("User:gapwatch-dr")).toBe("gapwatch-dr");
    expect(() => strimziUserName("User:CN=gapwatch")).toThrow(/User:<lower-case DNS name>/);
    expect(() => strimziUserName("Group:ops")).toThrow(/--principal Group:ops/);
  });
});
