import type { BrokerIo } from "./broker-io";
import { kafkaErrorName, toClusterError } from "./errors";
import { ensureBrokersKnown, type TopicCache } from "./metadata";
import type { ItemError, RawDescribeConfigsRequestResource, RawDescribeConfigsResponse, TopicConfigValues } from "./types";

/** DescribeConfigs resource types (Kafka's ConfigResource.Type). */
const topicResource: RawDescribeConfigsRequestResource["resourceType"] = 2;
const brokerResource: RawDescribeConfigsRequestResource["resourceType"] = 4;

/**
 * The topic configs Gapwatch reads: retention (data loss risk), compaction, unclean election, min ISR
 * (NO_CLEAN_SUCCESSOR), max message size (source/target drift).
 */
export const topicConfigKeys = ["retention.ms", "retention.bytes", "cleanup.policy", "unclean.leader.election.enable", "min.insync.replicas", "max.message.bytes"] as const;

const uncleanElectionKey = "unclean.leader.election.enable";

/**
 * Per-resource results of a DescribeConfigs response: the values of the configs that have one,
 * or `{ error }` with the Kafka error name (and the broker's message, when it sent one). A
 * requested name missing from the response gets an error too.
 */
export function reshapeConfigs(names: readonly string[], response: RawDescribeConfigsResponse): Map<string, TopicConfigValues | ItemError> {
  const byName = new Map(response.results.map((r) => [r.resourceName, r]));
  const out = new Map<string, TopicConfigValues | ItemError>();
  for (const name of names) {
    const result = byName.get(name);
    if (!result) {
      out.set(name, { error: "MISSING_FROM_RESPONSE" });
    } else if (result.errorCode !== 0) {
      const detail = result.errorMessage ? `: ${result.errorMessage}` : "";
      out.set(name, { error: `${kafkaErrorName(result.errorCode)}${detail}` });
    } else {
      const values: TopicConfigValues = {};
      // Sensitive configs come back with a null value; these six never are.
      for (const c of result.configs) if (typeof c.value === "string") values[c.name] = c.value;
      out.set(name, values);
    }
  }
  return out;
}

/** Parses a Kafka boolean config value; null when absent or not a boolean. */
export function parseBooleanConfig(value: string | null | undefined): boolean | null {
  if (value === undefined || value === null) return null;
  const v = value.trim().toLowerCase();
  return v === "true" ? true : v === "false" ? false : null;
}

/**
 * One DescribeConfigs request for all `topics` (topic resources may go to any broker), limited to
 * `topicConfigKeys`. Per-topic errors are kept; a failed request throws.
 */
export async function readTopicConfigs(io: BrokerIo, topics: readonly string[]): Promise<Map<string, TopicConfigValues | ItemError>> {
  const names = [...new Set(topics)];
  if (names.length === 0) return new Map();
  try {
    const connection = await io.connectAny();
    const { api } = await io.chooseApi("DescribeConfigs");
    const resources = names.map((name) => ({ resourceType: topicResource, resourceName: name, configurationKeys: [...topicConfigKeys] }));
    const response = await io.send(connection, api, [resources, false, false]);
    return reshapeConfigs(names, response);
  } catch (err) {
    throw toClusterError(io.conn, err, "DescribeConfigs (topics)");
  }
}

/**
 * The broker-level unclean.leader.election.enable of the lowest-numbered broker. Broker resources
 * must be described by that broker itself (KIP-226 dynamic broker configs live on each broker).
 */
export async function readBrokerUncleanElection(io: BrokerIo, cache: TopicCache): Promise<boolean | null> {
  try {
    await ensureBrokersKnown(io, cache);
    const nodeId = Math.min(...io.brokers.keys());
    const connection = await io.connectToNode(nodeId);
    const { api } = await io.chooseApi("DescribeConfigs");
    const name = String(nodeId);
    const resources = [{ resourceType: brokerResource, resourceName: name, configurationKeys: [uncleanElectionKey] }];
    const result = reshapeConfigs([name], await io.send(connection, api, [resources, false, false])).get(name);
    if (!result || "error" in result) throw new Error(`broker ${nodeId} config: ${result?.error ?? "missing"}`);
    return parseBooleanConfig(result[uncleanElectionKey]);
  } catch (err) {
    throw toClusterError(io.conn, err, "DescribeConfigs (broker)");
  }
}
