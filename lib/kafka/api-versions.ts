import {
  type API,
  describeConfigsV2,
  describeConfigsV3,
  describeConfigsV4,
  describeGroupsV5,
  describeTopicPartitionsV0,
  fetchV12,
  fetchV13,
  fetchV14,
  fetchV15,
  fetchV16,
  fetchV17,
  findCoordinatorV4,
  findCoordinatorV5,
  findCoordinatorV6,
  listGroupsV4,
  listGroupsV5,
  listOffsetsV5,
  listOffsetsV6,
  listOffsetsV7,
  listOffsetsV8,
  listOffsetsV9,
  metadataV10,
  metadataV11,
  metadataV12,
  offsetFetchV8,
  offsetFetchV9,
  offsetForLeaderEpochV4,
} from "@platformatic/kafka";
import { consumerGroupDescribeV0 } from "./consumer-group-describe";
import { describeShareGroupOffsetsV0, describeShareGroupOffsetsV1, shareGroupDescribeV1 } from "./share-group-apis";
import { streamsGroupDescribeV0 } from "./streams-group-describe";

/** One protocol version of an API as platformatic implements it. */
export interface VersionedApi<Req extends unknown[], Res> {
  version: number;
  api: API<Req, Res>;
}

type Versions<M extends { api: API<never, unknown> }> = M["api"] extends API<infer Req, infer Res> ? VersionedApi<Req, Res>[] : never;

/**
 * The versions Gapwatch may use, newest first, limited to what it needs: Metadata v10+ (topic
 * IDs; v7+ leader epochs), ListOffsets v5+ (v4+ returns leader epochs), OffsetFetch v8+ (several
 * groups per request; v5+ committed leader epochs), FindCoordinator v4+ (several keys per
 * request), Fetch v12+ (v13+ addresses topics by ID). Request arguments are the same across the
 * versions of one API, so the newest version's types describe them all.
 */
export const supportedApis = {
  Metadata: [
    { version: 12, api: metadataV12.api },
    { version: 11, api: metadataV11.api },
    { version: 10, api: metadataV10.api },
  ] as Versions<typeof metadataV12>,
  ListOffsets: [
    { version: 9, api: listOffsetsV9.api },
    { version: 8, api: listOffsetsV8.api },
    { version: 7, api: listOffsetsV7.api },
    { version: 6, api: listOffsetsV6.api },
    { version: 5, api: listOffsetsV5.api },
  ] as Versions<typeof listOffsetsV9>,
  DescribeConfigs: [
    { version: 4, api: describeConfigsV4.api },
    { version: 3, api: describeConfigsV3.api },
    { version: 2, api: describeConfigsV2.api },
  ] as Versions<typeof describeConfigsV4>,
  ListGroups: [
    { version: 5, api: listGroupsV5.api },
    { version: 4, api: listGroupsV4.api },
    // Typed as v4: v5 adds groupType to each group (RawListGroupsResponse makes it optional).
  ] as Versions<typeof listGroupsV4>,
  DescribeGroups: [{ version: 5, api: describeGroupsV5.api }] as Versions<typeof describeGroupsV5>,
  // Gapwatch's own codec: platformatic's v0 parser garbles groups with members (see the file).
  ConsumerGroupDescribe: [{ version: 0, api: consumerGroupDescribeV0 }],
  // Gapwatch's own codecs: platformatic 1.35 has no streams (KIP-1071) or share (KIP-932) group APIs.
  StreamsGroupDescribe: [{ version: 0, api: streamsGroupDescribeV0 }],
  ShareGroupDescribe: [{ version: 1, api: shareGroupDescribeV1 }],
  DescribeShareGroupOffsets: [
    { version: 1, api: describeShareGroupOffsetsV1 },
    { version: 0, api: describeShareGroupOffsetsV0 },
  ],
  FindCoordinator: [
    { version: 6, api: findCoordinatorV6.api },
    { version: 5, api: findCoordinatorV5.api },
    { version: 4, api: findCoordinatorV4.api },
  ] as Versions<typeof findCoordinatorV6>,
  OffsetFetch: [
    { version: 9, api: offsetFetchV9.api },
    { version: 8, api: offsetFetchV8.api },
  ] as Versions<typeof offsetFetchV9>,
  // v4, the flexible version Kafka 3.x and 4.x brokers speak; sent only when a leader epoch rose.
  OffsetForLeaderEpoch: [{ version: 4, api: offsetForLeaderEpochV4.api }] as Versions<typeof offsetForLeaderEpochV4>,
  // KIP-966's eligible leader replicas; sent only while a partition's ISR is its leader alone.
  DescribeTopicPartitions: [{ version: 0, api: describeTopicPartitionsV0.api }] as Versions<typeof describeTopicPartitionsV0>,
  Fetch: [
    { version: 17, api: fetchV17.api },
    { version: 16, api: fetchV16.api },
    { version: 15, api: fetchV15.api },
    { version: 14, api: fetchV14.api },
    { version: 13, api: fetchV13.api },
    { version: 12, api: fetchV12.api },
  ] as Versions<typeof fetchV17>,
};

/** Names of the APIs lib/kafka sends (besides ApiVersions). */
export type SupportedApiName = keyof typeof supportedApis;

/** A broker's supported version range of one API (from ApiVersions). */
export interface BrokerApiRange {
  name: string;
  minVersion: number;
  maxVersion: number;
}

/**
 * The newest version both sides speak: the first candidate (newest first) inside the broker's
 * range. Null when the broker does not offer the API or only versions we do not implement.
 */
export function chooseVersion<T extends { version: number }>(candidates: readonly T[], range: BrokerApiRange | undefined): T | null {
  if (!range) return null;
  return candidates.find((c) => c.version >= range.minVersion && c.version <= range.maxVersion) ?? null;
}
