import { createAPI, type Reader, Writer } from "@platformatic/kafka";
import type { ConsumerGroupDescribeResponse, DescribedConsumerGroup } from "./consumer-group-describe";

/**
 * Gapwatch's own codecs for share groups (KIP-932), which platformatic 1.35 does not implement.
 * Field order follows Kafka 4.3.1's generated schemas (ShareGroupDescribeResponseData.SCHEMAS[1],
 * DescribeShareGroupOffsetsResponseData.SCHEMAS[0..1], printed from kafka-clients-4.3.1.jar).
 */

/** API keys (Kafka's ApiKeys): SHARE_GROUP_DESCRIBE, DESCRIBE_SHARE_GROUP_OFFSETS. */
const shareGroupDescribeKey = 77;
const describeShareGroupOffsetsKey = 90;

function createDescribeRequest(groupIds: string[], includeAuthorizedOperations: boolean): Writer {
  return Writer.create()
    .appendArray(groupIds, (w, id) => w.appendString(id), true, false)
    .appendBoolean(includeAuthorizedOperations)
    .appendTaggedFields();
}

/** ShareGroupDescribe v1 (v0 was early access, removed in Kafka 4.1): state and member count. */
function parseDescribeResponse(_correlationId: number, _apiKey: number, _apiVersion: number, reader: Reader): ConsumerGroupDescribeResponse {
  reader.readInt32(); // throttle_time_ms
  const groups = reader.readArray((g): DescribedConsumerGroup => {
    const errorCode = g.readInt16();
    g.readNullableString(); // error_message
    const groupId = g.readString();
    const groupState = g.readString();
    g.readInt32(); // group_epoch
    g.readInt32(); // assignment_epoch
    g.readString(); // assignor_name
    const members = g.readArray((m) => {
      m.readString(); // member_id
      m.readNullableString(); // rack_id
      m.readInt32(); // member_epoch
      m.readString(); // client_id
      m.readString(); // client_host
      m.readArray((s) => s.readString(), true, false); // subscribed_topic_names
      // assignment: topic_partitions, then the Assignment struct's own tagged fields
      m.readArray((t) => {
        t.readUUID();
        t.readString();
        t.readArray((p) => p.readInt32(), true, false);
      });
      m.readTaggedFields();
      return null;
    });
    g.readInt32(); // authorized_operations
    return { errorCode, groupId, groupState, members: members.length };
  });
  return { groups };
}

/** ShareGroupDescribe v1; the reduced answer has the shape of ConsumerGroupDescribe's (state, member count). */
export const shareGroupDescribeV1 = createAPI<[groupIds: string[], includeAuthorizedOperations: boolean], ConsumerGroupDescribeResponse>(
  shareGroupDescribeKey,
  1,
  createDescribeRequest,
  parseDescribeResponse,
);

/** One partition of a share group: where its share-partition starts (KIP-932's SPSO). */
export interface SharePartitionOffset {
  topic: string;
  partition: number;
  /** The share-partition start offset: records below it are all delivered or archived; −1 = not initialised. */
  startOffset: bigint;
  leaderEpoch: number;
  /** The lag Kafka reports for the share-partition (v1+); null from a v0 broker or when Kafka sends −1 (unknown). */
  lag: bigint | null;
  errorCode: number;
}

/** One group's answer to DescribeShareGroupOffsets. */
export interface ShareGroupOffsets {
  groupId: string;
  errorCode: number;
  partitions: SharePartitionOffset[];
}

/** topics null = every topic the group has state for (DescribeShareGroupOffsetsRequest). */
function createOffsetsRequest(groupIds: string[]): Writer {
  return Writer.create()
    .appendArray(groupIds, (w, groupId) => w.appendString(groupId).appendArray(null, () => undefined), true, true)
    .appendTaggedFields();
}

function parseOffsetsResponse(_correlationId: number, _apiKey: number, apiVersion: number, reader: Reader): { groups: ShareGroupOffsets[] } {
  reader.readInt32(); // throttle_time_ms
  const groups = reader.readArray((g): ShareGroupOffsets => {
    const groupId = g.readString();
    const partitions = g.readArray((t) => {
      const topic = t.readString();
      t.readUUID(); // topic_id
      return t.readArray((p): SharePartitionOffset => {
        const partition = p.readInt32();
        const startOffset = p.readInt64();
        const leaderEpoch = p.readInt32();
        const lag = apiVersion >= 1 ? p.readInt64() : -1n;
        const errorCode = p.readInt16();
        p.readNullableString(); // error_message
        return { topic, partition, startOffset, leaderEpoch, lag: lag < 0n ? null : lag, errorCode };
      });
    }).flat();
    const errorCode = g.readInt16();
    g.readNullableString(); // error_message
    return { groupId, errorCode, partitions };
  });
  return { groups };
}

/** DescribeShareGroupOffsets v1 (adds each partition's lag) and v0. */
export const describeShareGroupOffsetsV1 = createAPI<[groupIds: string[]], { groups: ShareGroupOffsets[] }>(describeShareGroupOffsetsKey, 1, createOffsetsRequest, parseOffsetsResponse);
export const describeShareGroupOffsetsV0 = createAPI<[groupIds: string[]], { groups: ShareGroupOffsets[] }>(describeShareGroupOffsetsKey, 0, createOffsetsRequest, parseOffsetsResponse);
