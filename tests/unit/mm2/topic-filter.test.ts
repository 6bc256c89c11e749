import { describe, expect, it } from "vitest";
import { createDefaultReplicationPolicy, createIdentityReplicationPolicy, judgeTopic, readTopicFilter, type TopicFilterSpec } from "@/lib/mm2";

/** The DefaultTopicFilter of a config (fails the test when it is unknown). */
function filterOf(config: Record<string, string>) {
  const spec = readTopicFilter(config);
  if (spec.kind !== "default") throw new Error(`expected a default filter, got: ${spec.reason}`);
  return spec.filter;
}

const flow = { target: "target" };
const defaultPolicy = createDefaultReplicationPolicy();

describe("readTopicFilter: Kafka's MirrorSourceConfigTest vectors (3.9)", () => {
  it("testTopicMatching: topics=topic1 takes topic1 only", () => {
    const f = filterOf({ topics: "topic1" });
    expect([f.matches("topic1"), f.matches("topic2")]).toEqual([true, false]);
  });

  it("testNoTopics: an empty topics list takes nothing, not even the empty name", () => {
    const f = filterOf({ topics: "" });
    expect(["topic1", "topic2", ""].map(f.matches)).toEqual([false, false, false]);
  });

  it("testAllTopics and testListOfTopics", () => {
    expect(["topic1", "topic2"].map(filterOf({ topics: ".*" }).matches)).toEqual([true, true]);
    expect(["topic1", "topic2", "topic3"].map(filterOf({ topics: "topic1, topic2" }).matches)).toEqual([true, true, false]);
  });

  it("testConfigBackwardsCompatibility: topics.blacklist alone is version-dependent (honoured to 3.9, removed in 4.0), so unknown", () => {
    expect(readTopicFilter({ "topics.blacklist": "topic-1" })).toEqual({
      kind: "unknown",
      subject: "topics.blacklist",
      reason: 'topics.blacklist "topic-1" is applied by Kafka 2.7–3.9 and ignored since 4.0 (KAFKA-17529)',
    });
  });

  it("takes topics.exclude over topics.blacklist when both are set (every version does)", () => {
    const f = filterOf({ "topics.exclude": "topic-2", "topics.blacklist": "topic-1" });
    expect([f.matches("topic-1"), f.matches("topic-2")]).toEqual([true, false]);
  });
});

describe("readTopicFilter: MM2's defaults and LIST semantics", () => {
  it("excludes .*[\\-\\.]internal, .*\\.replica and __.* by default", () => {
    const f = filterOf({});
    const names = ["orders", "orders.internal", "orders-internal", "orders_internal", "orders.replica", "orders-replica", "__consumer_offsets", "_schemas"];
    expect(names.filter(f.matches)).toEqual(["orders", "orders_internal", "orders-replica", "_schemas"]);
  });

  it("matches whole names only (Java matcher().matches()), with blanks around commas trimmed", () => {
    const f = filterOf({ topics: " orders , pay.* ", "topics.exclude": "payments-dlq" });
    const names = ["orders", "my-orders", "orders2", "payments", "payments-dlq", "pay"];
    expect(names.filter(f.matches)).toEqual(["orders", "payments", "pay"]);
  });

  it("joins the items into one pattern as MirrorUtils.compilePatternList does (a group may span items)", () => {
    const f = filterOf({ topics: "(orders, payments)" });
    expect(["orders", "payments", "(orders"].map(f.matches)).toEqual([true, true, false]);
  });

  it("an empty topics.exclude excludes nothing", () => {
    expect(filterOf({ "topics.exclude": "" }).matches("__consumer_offsets")).toBe(true);
  });

  it("cannot evaluate a custom topic.filter.class or a pattern JavaScript does not compile", () => {
    const custom = readTopicFilter({ "topic.filter.class": "com.acme.RegexTopicFilter" });
    const javaOnly = readTopicFilter({ topics: "(?i)orders" });
    expect([custom, javaOnly].map((s: TopicFilterSpec) => (s.kind === "unknown" ? s.reason : s.kind))).toEqual([
      "custom topic.filter.class com.acme.RegexTopicFilter",
      "topic patterns that do not compile here: (?i)orders",
    ]);
  });

  it("accepts DefaultTopicFilter named in full or by its simple name", () => {
    expect(readTopicFilter({ "topic.filter.class": "org.apache.kafka.connect.mirror.DefaultTopicFilter" }).kind).toBe("default");
    expect(readTopicFilter({ "topic.filter.class": "DefaultTopicFilter" }).kind).toBe("default");
  });
});

describe("judgeTopic: Kafka's MirrorSourceConnectorTest vectors (3.9)", () => {
  it("testReplicatesHeartbeatsByDefault", () => {
    const f = filterOf({});
    expect(judgeTopic(f, defaultPolicy, flow, "heartbeats")).toEqual({ replicated: true });
    expect(judgeTopic(f, defaultPolicy, flow, "us-west.heartbeats")).toEqual({ replicated: true });
  });

  it("testReplicatesHeartbeatsDespiteFilter, and with separator _ us-west.heartbeats is no heartbeats topic", () => {
    const none = filterOf({ topics: "" });
    expect(judgeTopic(none, defaultPolicy, flow, "heartbeats")).toEqual({ replicated: true });
    expect(judgeTopic(none, defaultPolicy, flow, "us-west.heartbeats")).toEqual({ replicated: true });
    const underscore = createDefaultReplicationPolicy({ separator: "_" });
    expect(judgeTopic(none, underscore, flow, "heartbeats")).toEqual({ replicated: true });
    expect(judgeTopic(none, underscore, flow, "us-west.heartbeats")).toEqual({ replicated: false, reason: "not matched by topics" });
  });

  it("testNoCycles", () => {
    const all = filterOf({ topics: ".*", "topics.exclude": "" });
    const cycles = ["target.topic1", "target.source.topic1", "source.target.topic1", "target.source.target.topic1", "source.target.source.topic1"];
    expect(cycles.map((t) => judgeTopic(all, defaultPolicy, flow, t).replicated)).toEqual([false, false, false, false, false]);
    expect(judgeTopic(all, defaultPolicy, flow, "target.topic1")).toEqual({ replicated: false, reason: "it came from target (MM2 never copies a topic back)" });
    expect(["topic1", "source.topic1"].map((t) => judgeTopic(all, defaultPolicy, flow, t).replicated)).toEqual([true, true]);
  });

  it("testIdentityReplication: IdentityReplicationPolicy cannot see cycles", () => {
    const all = filterOf({ topics: ".*", "topics.exclude": "" });
    const identity = createIdentityReplicationPolicy({ sourceClusterAlias: "source" });
    const names = ["target.topic1", "target.source.topic1", "source.target.topic1", "target.source.target.topic1"];
    expect(names.map((t) => judgeTopic(all, identity, flow, t).replicated)).toEqual([true, true, true, true]);
  });

  it("names why a topic is left out: internal for the policy, topics.exclude, or not in topics", () => {
    const f = filterOf({ topics: "orders, payments, mm2-offset-syncs.*", "topics.exclude": "payments" });
    expect(judgeTopic(f, defaultPolicy, flow, "mm2-offset-syncs.target.internal")).toEqual({ replicated: false, reason: "an internal topic for the replication policy" });
    expect(judgeTopic(f, defaultPolicy, flow, "payments")).toEqual({ replicated: false, reason: "excluded by topics.exclude" });
    expect(judgeTopic(f, defaultPolicy, flow, "clicks")).toEqual({ replicated: false, reason: "not matched by topics" });
  });
});
