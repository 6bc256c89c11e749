import type { ClusterReader, FetchRequestItem, FetchResult } from "@/lib/kafka";

/**
 * A ClusterReader that only fetches, answering as a broker does from `answers` keyed
 * `topic/partition` (control batches already decoded away); every other call rejects. Each
 * fetchPartitions call's items are pushed to `seen`, so tests can count requests.
 */
export function createFetchReader(alias: string, answers: Record<string, FetchResult>, seen: FetchRequestItem[][] = []): ClusterReader {
  const unused = () => Promise.reject(new Error(`${alias}: only fetches are answered in this test`));
  const answer = (i: FetchRequestItem): FetchResult => answers[`${i.topic}/${i.partition}`] ?? { error: "MISSING_FROM_RESPONSE" };
  return {
    alias,
    readMetadata: unused,
    readLogOffsets: unused,
    readTopicConfigs: unused,
    readBrokerUncleanElection: unused,
    listGroups: unused,
    readGroupOffsets: unused,
    readShareGroupOffsets: unused,
    readEpochEndOffsets: unused,
    readEligibleLeaders: unused,
    fetchRecords: (topic, partition, offset) => {
      seen.push([{ topic, partition, offset }]);
      return Promise.resolve(answer({ topic, partition, offset }));
    },
    fetchPartitions: (items) => {
      seen.push(items);
      return Promise.resolve(new Map(items.map((i) => [`${i.topic}/${i.partition}`, answer(i)])));
    },
    requestCounts: () => [],
    resetRequestCounts: () => undefined,
    close: () => Promise.resolve(),
  };
}
