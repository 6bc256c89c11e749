import { getLogger } from "@/lib/logger";
import type { BrokerIo } from "./broker-io";
import { describeKafkaError, kafkaErrorName } from "./errors";
import { groupByLeader } from "./list-offsets";
import { ensureBrokersKnown, type TopicCache } from "./metadata";
import { partitionKey } from "./partition-key";
import type {
  EpochEndOffset,
  EpochEndRequest,
  ItemError,
  RawOffsetForLeaderEpochRequestTopic,
  RawOffsetForLeaderEpochResponse,
} from "./types";

const log = getLogger("kafka");

/** replica_id -1: a consumer's request, which only the partition's leader answers. */
const consumerReplicaId = -1;
/** Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET: the leader knows no epoch ≤ the one asked. */
const undefinedEpoch = -1;

/** The OffsetForLeaderEpoch request body: one entry per topic. */
export function buildEpochEndTopics(requests: readonly EpochEndRequest[]): RawOffsetForLeaderEpochRequestTopic[] {
  const byTopic = new Map<string, RawOffsetForLeaderEpochRequestTopic>();
  for (const r of requests) {
    const topic = byTopic.get(r.topic) ?? { name: r.topic, partitions: [] };
    // current_leader_epoch fences the answer (FENCED/UNKNOWN_LEADER_EPOCH) to the leader whose
    // epoch the caller saw, so it never mixes with another election (KIP-320).
    const { partition: partitionIndex, currentLeaderEpoch, leaderEpoch } = r;
    topic.partitions.push({ partitionIndex, currentLeaderEpoch, leaderEpoch });
    byTopic.set(r.topic, topic);
  }
  return [...byTopic.values()];
}

/** Per-partition results of one broker's response; a partition missing from it or failing gets `{ error }`. */
export function reshapeEpochEndResponse(
  requests: readonly EpochEndRequest[],
  response: RawOffsetForLeaderEpochResponse | ItemError,
): Map<string, EpochEndOffset | ItemError> {
  const index = new Map<string, EpochEndOffset | ItemError>();
  if (!("error" in response)) {
    for (const t of response.topics) {
      for (const p of t.partitions) {
        const key = partitionKey(t.topic, p.partition);
        if (p.errorCode !== 0) index.set(key, { error: kafkaErrorName(p.errorCode) });
        else if (p.leaderEpoch === undefinedEpoch || p.endOffset < 0n) index.set(key, { error: "UNDEFINED_EPOCH" });
        else index.set(key, { leaderEpoch: p.leaderEpoch, endOffset: p.endOffset });
      }
    }
  }
  const out = new Map<string, EpochEndOffset | ItemError>();
  for (const r of requests) {
    const key = partitionKey(r.topic, r.partition);
    out.set(key, "error" in response ? response : (index.get(key) ?? { error: "MISSING_FROM_RESPONSE" }));
  }
  return out;
}

/**
 * The end offset of a leader epoch on each partition's current leader: exactly one
 * OffsetForLeaderEpoch per leader broker, all its partitions in it. Kafka answers with the largest
 * epoch ≤ the one asked and its end offset, i.e. the start offset of the next epoch in the
 * leader's own log (LeaderEpochFileCache.endOffsetFor) — where that leader's log diverges from a
 * log written further in the epoch asked about. A failing broker or partition fails only its own
 * entries (never throws for them).
 */
export async function readEpochEndOffsets(
  io: BrokerIo,
  cache: TopicCache,
  requests: readonly EpochEndRequest[],
): Promise<Map<string, EpochEndOffset | ItemError>> {
  const result = new Map<string, EpochEndOffset | ItemError>();
  const { byLeader } = groupByLeader(requests);
  if (byLeader.size === 0) return result;
  await ensureBrokersKnown(io, cache, byLeader.keys());
  const { api } = await io.chooseApi("OffsetForLeaderEpoch");
  const asked = new Map(requests.map((r) => [partitionKey(r.topic, r.partition), r]));
  await Promise.all(
    [...byLeader].map(async ([leader, list]) => {
      const mine = list.map((p) => asked.get(partitionKey(p.topic, p.partition))!);
      let response: RawOffsetForLeaderEpochResponse | ItemError;
      try {
        const connection = await io.connectToNode(leader);
        response = await io.send(connection, api, [consumerReplicaId, buildEpochEndTopics(mine)]);
      } catch (err) {
        response = { error: `broker ${leader}: ${describeKafkaError(err, io.conn.requestTimeoutMs)}` };
        log.warn({ cluster: io.conn.alias, broker: leader, error: response.error }, "OffsetForLeaderEpoch failed on a broker");
      }
      for (const [key, value] of reshapeEpochEndResponse(mine, response)) result.set(key, value);
    }),
  );
  return result;
}
