import type { Connection } from "@platformatic/kafka";
import { getLogger } from "@/lib/logger";
import type { BrokerIo } from "./broker-io";
import { describeKafkaError, isNetworkFailure, kafkaErrorName, KafkaRequestError, toClusterError, toUnreachableError } from "./errors";
import { ensureBrokersKnown, type TopicCache } from "./metadata";
import type { ShareGroupOffsets } from "./share-group-apis";
import type { GroupOffsetRow, GroupSummary, ItemError, RawDescribeGroupsResponse, RawListGroupsResponse, RawOffsetFetchResponse, ShareGroupOffsetRow } from "./types";

const log = getLogger("kafka");

/** FindCoordinator key type GROUP (Kafka's FindCoordinatorRequest.CoordinatorType). */
const groupKeyType = 0;

/** A group's coordinator, or why it could not be found. */
export type Coordinator = { nodeId: number; host: string; port: number } | ItemError;

/**
 * Kafka's group state names ("Stable", "PreparingRebalance", as ListGroups/DescribeGroups send
 * them) in the Java enum's spelling: "STABLE", "PREPARING_REBALANCE".
 */
export function normalizeGroupState(state: string): string {
  return state.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** A group as ListGroups lists it. */
interface ListedGroup {
  state: string;
  protocolType: string;
  groupType: string;
}

/**
 * Groups from the ListGroups answers of all brokers (each broker lists the groups it coordinates).
 * v5 names each group's type; an older broker has classic groups only.
 */
export function mergeListedGroups(responses: readonly Pick<RawListGroupsResponse, "groups">[]): Map<string, ListedGroup> {
  const groups = new Map<string, ListedGroup>();
  for (const r of responses) {
    for (const g of r.groups) {
      groups.set(g.groupId, { state: normalizeGroupState(g.groupState), protocolType: g.protocolType, groupType: (g.groupType ?? "classic").toLowerCase() });
    }
  }
  return groups;
}

/** Committed offsets per group from an OffsetFetch (v8+) response; a group or partition error fails that group. */
export function reshapeGroupOffsets(groupIds: readonly string[], response: RawOffsetFetchResponse): Map<string, GroupOffsetRow[] | ItemError> {
  const byId = new Map(response.groups.map((g) => [g.groupId, g]));
  const out = new Map<string, GroupOffsetRow[] | ItemError>();
  for (const id of groupIds) {
    const group = byId.get(id);
    if (!group) {
      out.set(id, { error: "MISSING_FROM_RESPONSE" });
      continue;
    }
    if (group.errorCode !== 0) {
      out.set(id, { error: kafkaErrorName(group.errorCode) });
      continue;
    }
    const failed = group.topics.flatMap((t) => t.partitions.filter((p) => p.errorCode !== 0).map((p) => `${t.name}/${p.partitionIndex}: ${kafkaErrorName(p.errorCode)}`));
    if (failed.length > 0) {
      out.set(id, { error: failed.join(", ") });
      continue;
    }
    const rows: GroupOffsetRow[] = [];
    for (const t of group.topics) {
      for (const p of t.partitions) {
        // -1 = no committed offset for this partition (OffsetFetchResponse.INVALID_OFFSET).
        if (p.committedOffset < 0n) continue;
        rows.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, committedLeaderEpoch: p.committedLeaderEpoch });
      }
    }
    rows.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    out.set(id, rows);
  }
  return out;
}

/** ONE FindCoordinator request (v4+ takes many keys) for all groups. */
export async function findCoordinators(io: BrokerIo, groupIds: readonly string[]): Promise<Map<string, Coordinator>> {
  const connection = await io.connectAny();
  const { api } = await io.chooseApi("FindCoordinator");
  const response = await io.send(connection, api, [groupKeyType, [...groupIds]]);
  const out = new Map<string, Coordinator>();
  for (const c of response.coordinators) {
    out.set(c.key, c.errorCode === 0 ? { nodeId: c.nodeId, host: c.host, port: c.port } : { error: kafkaErrorName(c.errorCode) });
  }
  for (const id of groupIds) if (!out.has(id)) out.set(id, { error: "MISSING_FROM_RESPONSE" });
  return out;
}

/** Runs `request` once per coordinator with its groups; a failing coordinator fails only its groups. */
async function perCoordinator<T>(
  io: BrokerIo,
  groupIds: readonly string[],
  request: (connection: Connection, groups: string[]) => Promise<Map<string, T | ItemError>>,
): Promise<{ results: Map<string, T | ItemError>; failures: unknown[] }> {
  const coordinators = await findCoordinators(io, groupIds);
  const results = new Map<string, T | ItemError>();
  const byNode = new Map<number, { address: { host: string; port: number }; groups: string[] }>();
  for (const [group, c] of coordinators) {
    if ("error" in c) {
      results.set(group, c);
      continue;
    }
    const entry = byNode.get(c.nodeId) ?? { address: { host: c.host, port: c.port }, groups: [] };
    entry.groups.push(group);
    byNode.set(c.nodeId, entry);
  }
  const failures: unknown[] = [];
  await Promise.all(
    [...byNode].map(async ([nodeId, { address, groups }]) => {
      try {
        const connection = await io.connectTo(address);
        for (const [group, value] of await request(connection, groups)) results.set(group, value);
      } catch (err) {
        failures.push(err);
        const error = `coordinator ${nodeId}: ${describeKafkaError(err, io.conn.requestTimeoutMs)}`;
        log.warn({ cluster: io.conn.alias, broker: nodeId, error }, "group request failed on a coordinator");
        for (const group of groups) results.set(group, { error });
      }
    }),
  );
  if (byNode.size > 0 && failures.length === byNode.size && failures.every(isNetworkFailure)) {
    throw toUnreachableError(io.conn, failures[0], "(no group coordinator answered)");
  }
  return { results, failures };
}

/**
 * The group types Gapwatch lists (ListGroups v5 type filter): classic and consumer-protocol (KIP-848)
 * groups, which MM2 checkpoints, and streams (KIP-1071) and share (KIP-932) groups, which it does not
 * (lib/translation/group-types.ts). Named rather than "all" so that a type Gapwatch cannot describe
 * is not listed half-read.
 */
const listedGroupTypes = ["classic", "consumer", "streams", "share"];

/**
 * Groups of every type above: ListGroups on every broker, then per coordinator one describe per type
 * to read their state and count members: DescribeGroups (classic), ConsumerGroupDescribe, StreamsGroupDescribe,
 * ShareGroupDescribe (DescribeGroups answers the newer types as DEAD). Any broker failing ListGroups fails the
 * call, since its groups would silently be missing; a failing describe only marks its groups.
 */
export async function listGroups(io: BrokerIo, cache: TopicCache): Promise<GroupSummary[]> {
  try {
    await ensureBrokersKnown(io, cache);
    const { api, version } = await io.chooseApi("ListGroups");
    const brokers = [...io.brokers.values()];
    const listed = await Promise.allSettled(
      brokers.map(async (b) => {
        const response: RawListGroupsResponse = await io.send(await io.connectTo(b), api, [[], version >= 5 ? listedGroupTypes : []]);
        if (response.errorCode !== 0) throw new Error(`broker ${b.nodeId}: ${kafkaErrorName(response.errorCode)}`);
        return response;
      }),
    );
    const failed = listed.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    if (failed.length > 0) {
      if (failed.every(isNetworkFailure)) throw toUnreachableError(io.conn, failed.length === 1 ? failed[0] : new AggregateError(failed), "(ListGroups)");
      throw new KafkaRequestError(io.conn.alias, `cluster ${io.conn.alias}: ListGroups failed: ${failed.map((e) => describeKafkaError(e)).join("; ")}`);
    }
    const groups = mergeListedGroups(listed.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])));
    if (groups.size === 0) return [];

    const idsOf = (type: string) => [...groups].filter(([, g]) => g.groupType === type).map(([id]) => id);
    const described = new Map([
      ...(await describeClassicGroups(io, idsOf("classic"))),
      ...(await describeModernGroups(io, "ConsumerGroupDescribe", idsOf("consumer"))),
      ...(await describeModernGroups(io, "StreamsGroupDescribe", idsOf("streams"))),
      ...(await describeModernGroups(io, "ShareGroupDescribe", idsOf("share"))),
    ]);
    return [...groups]
      .map(([groupId, listedGroup]): GroupSummary => {
        const found = described.get(groupId);
        if (!found || "error" in found) return { groupId, ...listedGroup, members: -1, error: found?.error ?? "MISSING_FROM_RESPONSE" };
        return { groupId, ...listedGroup, state: found.state, members: found.members, ...(found.protocolType === undefined ? {} : { protocolType: found.protocolType }) };
      })
      .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  } catch (err) {
    throw toClusterError(io.conn, err, "listing groups");
  }
}

/** State and member count of a described group (and its protocol type, which DescribeGroups names). */
type DescribedGroup = { state: string; members: number; protocolType?: string };

async function describeClassicGroups(io: BrokerIo, ids: string[]): Promise<Map<string, DescribedGroup | ItemError>> {
  if (ids.length === 0) return new Map();
  const describe = await io.chooseApi("DescribeGroups");
  const { results } = await perCoordinator(io, ids, async (connection, groups) => {
    const response: RawDescribeGroupsResponse = await io.send(connection, describe.api, [groups, false]);
    return new Map(
      response.groups.map((g): [string, DescribedGroup | ItemError] => [
        g.groupId,
        g.errorCode === 0 ? { state: normalizeGroupState(g.groupState), members: g.members.length, protocolType: g.protocolType } : { error: kafkaErrorName(g.errorCode) },
      ]),
    );
  });
  return results;
}

/**
 * Consumer (KIP-848), streams (KIP-1071) or share (KIP-932) groups with their own describe API; a broker
 * without it leaves them listed with unknown members.
 */
async function describeModernGroups(
  io: BrokerIo,
  apiName: "ConsumerGroupDescribe" | "StreamsGroupDescribe" | "ShareGroupDescribe",
  ids: string[],
): Promise<Map<string, DescribedGroup | ItemError>> {
  if (ids.length === 0) return new Map();
  let describe;
  try {
    describe = await io.chooseApi(apiName);
  } catch (err) {
    const error = describeKafkaError(err, io.conn.requestTimeoutMs);
    return new Map(ids.map((id) => [id, { error }]));
  }
  const { results } = await perCoordinator(io, ids, async (connection, groups) => {
    const response = await io.send(connection, describe.api, [groups, false]);
    return new Map(
      response.groups.map((g): [string, DescribedGroup | ItemError] => [
        g.groupId,
        g.errorCode === 0 ? { state: normalizeGroupState(g.groupState), members: g.members } : { error: kafkaErrorName(g.errorCode) },
      ]),
    );
  });
  return results;
}

/**
 * Committed offsets of groups: one FindCoordinator for all, then one OffsetFetch (v8+, several
 * groups per request; committed leader epochs since v5) per coordinator. All topics of each group.
 */
export async function readGroupOffsets(io: BrokerIo, groupIds: readonly string[]): Promise<Map<string, GroupOffsetRow[] | ItemError>> {
  const ids = [...new Set(groupIds)];
  if (ids.length === 0) return new Map();
  try {
    const { api } = await io.chooseApi("OffsetFetch");
    const { results } = await perCoordinator(io, ids, async (connection, groups) => {
      // topics null = all topics of the group; member id/epoch unset = an admin read (KIP-848).
      const request = groups.map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null }));
      return reshapeGroupOffsets(groups, await io.send(connection, api, [request, false]));
    });
    return new Map(ids.map((id) => [id, results.get(id) ?? { error: "MISSING_FROM_RESPONSE" }]));
  } catch (err) {
    throw toClusterError(io.conn, err, "OffsetFetch");
  }
}

/**
 * Share groups' positions from one DescribeShareGroupOffsets answer: the share-partition start offset
 * (SPSO) of every partition the group has state for. A group or partition error fails that group.
 */
export function reshapeShareGroupOffsets(groupIds: readonly string[], groups: readonly ShareGroupOffsets[]): Map<string, ShareGroupOffsetRow[] | ItemError> {
  const byId = new Map(groups.map((g) => [g.groupId, g]));
  const out = new Map<string, ShareGroupOffsetRow[] | ItemError>();
  for (const id of groupIds) {
    const group = byId.get(id);
    if (!group) {
      out.set(id, { error: "MISSING_FROM_RESPONSE" });
      continue;
    }
    const failed = group.partitions.filter((p) => p.errorCode !== 0).map((p) => `${p.topic}/${p.partition}: ${kafkaErrorName(p.errorCode)}`);
    if (group.errorCode !== 0 || failed.length > 0) {
      out.set(id, { error: group.errorCode !== 0 ? kafkaErrorName(group.errorCode) : failed.join(", ") });
      continue;
    }
    const rows = group.partitions
      // −1: the share-partition is not initialised yet (no consumer has fetched from it).
      .filter((p) => p.startOffset >= 0n)
      .map(({ topic, partition, startOffset, leaderEpoch, lag }): ShareGroupOffsetRow => ({ topic, partition, startOffset, leaderEpoch, lag }))
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    out.set(id, rows);
  }
  return out;
}

/**
 * Share groups' start offsets: one FindCoordinator for all, then one DescribeShareGroupOffsets (all topics
 * of each group) per coordinator. Share groups commit no offsets (OffsetFetch does not answer them).
 */
export async function readShareGroupOffsets(io: BrokerIo, groupIds: readonly string[]): Promise<Map<string, ShareGroupOffsetRow[] | ItemError>> {
  const ids = [...new Set(groupIds)];
  if (ids.length === 0) return new Map();
  try {
    const { api } = await io.chooseApi("DescribeShareGroupOffsets");
    const { results } = await perCoordinator(io, ids, async (connection, groups) => reshapeShareGroupOffsets(groups, (await io.send(connection, api, [groups])).groups));
    return new Map(ids.map((id) => [id, results.get(id) ?? { error: "MISSING_FROM_RESPONSE" }]));
  } catch (err) {
    throw toClusterError(io.conn, err, "DescribeShareGroupOffsets");
  }
}
