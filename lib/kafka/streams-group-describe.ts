import { createAPI, type Reader, Writer } from "@platformatic/kafka";
import type { ConsumerGroupDescribeResponse, DescribedConsumerGroup } from "./consumer-group-describe";

/**
 * StreamsGroupDescribe v0 (KIP-1071, API 89), which platformatic 1.35 does not implement. Field order
 * follows Kafka 4.3.1's StreamsGroupDescribeResponseData.SCHEMAS[0] (printed from kafka-clients-4.3.1.jar;
 * the message's early JSON differs: it had `SourceTopicRegex` and no `IsClassic`). Gapwatch keeps the
 * state and the member count; everything else is read only to reach the next field.
 */
const streamsGroupDescribeKey = 89;

function createRequest(groupIds: string[], includeAuthorizedOperations: boolean): Writer {
  return Writer.create()
    .appendArray(groupIds, (w, id) => w.appendString(id), true, false)
    .appendBoolean(includeAuthorizedOperations)
    .appendTaggedFields();
}

/** A nullable struct: int8 −1 for null, 1 before the struct (Kafka's generated readers). */
function readNullableStruct(r: Reader, readStruct: (r: Reader) => void): void {
  if (r.readInt8() < 0) return;
  readStruct(r);
  r.readTaggedFields();
}

const skipStrings = (r: Reader) => r.readArray((s) => s.readString(), true, false);
const skipInt32s = (r: Reader) => r.readArray((s) => s.readInt32(), true, false);

function skipKeyValues(r: Reader): void {
  r.readArray((kv) => {
    kv.readString();
    kv.readString();
  });
}

/** TopicInfo: name, partitions, replication_factor, topic_configs. */
function skipTopicInfos(r: Reader): void {
  r.readArray((t) => {
    t.readString();
    t.readInt32();
    t.readInt16();
    skipKeyValues(t);
  });
}

/** Topology: epoch, then the sub-topologies (nullable array). */
function skipTopology(r: Reader): void {
  r.readInt32(); // epoch
  r.readNullableArray((s) => {
    s.readString(); // subtopology_id
    skipStrings(s); // source_topics
    skipStrings(s); // repartition_sink_topics
    skipTopicInfos(s); // state_changelog_topics
    skipTopicInfos(s); // repartition_source_topics
  });
}

/** TaskOffset[]: subtopology_id, partition, offset. */
function skipTaskOffsets(r: Reader): void {
  r.readArray((t) => {
    t.readString();
    t.readInt32();
    t.readInt64();
  });
}

/** Assignment: active, standby and warm-up TaskIds, then the struct's tagged fields. */
function skipAssignment(r: Reader): void {
  for (let i = 0; i < 3; i++) {
    r.readArray((t) => {
      t.readString();
      skipInt32s(t);
    });
  }
  r.readTaggedFields();
}

function skipMember(m: Reader): void {
  m.readString(); // member_id
  m.readInt32(); // member_epoch
  m.readNullableString(); // instance_id
  m.readNullableString(); // rack_id
  m.readString(); // client_id
  m.readString(); // client_host
  m.readInt32(); // topology_epoch
  m.readString(); // process_id
  readNullableStruct(m, (e) => {
    e.readString(); // host
    e.readUnsignedInt16(); // port
  }); // user_endpoint
  skipKeyValues(m); // client_tags
  skipTaskOffsets(m); // task_offsets
  skipTaskOffsets(m); // task_end_offsets
  skipAssignment(m); // assignment
  skipAssignment(m); // target_assignment
  m.readBoolean(); // is_classic
}

function parseResponse(_correlationId: number, _apiKey: number, _apiVersion: number, reader: Reader): ConsumerGroupDescribeResponse {
  reader.readInt32(); // throttle_time_ms
  const groups = reader.readArray((g): DescribedConsumerGroup => {
    const errorCode = g.readInt16();
    g.readNullableString(); // error_message
    const groupId = g.readString();
    const groupState = g.readString();
    g.readInt32(); // group_epoch
    g.readInt32(); // assignment_epoch
    readNullableStruct(g, skipTopology); // topology
    const members = g.readArray((m) => skipMember(m));
    g.readInt32(); // authorized_operations
    return { errorCode, groupId, groupState, members: members.length };
  });
  return { groups };
}

/** StreamsGroupDescribe v0; the reduced answer has the shape of ConsumerGroupDescribe's (state, member count). */
export const streamsGroupDescribeV0 = createAPI<[groupIds: string[], includeAuthorizedOperations: boolean], ConsumerGroupDescribeResponse>(
  streamsGroupDescribeKey,
  0,
  createRequest,
  parseResponse,
);
