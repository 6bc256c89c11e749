import { createAPI, type Reader, Writer } from "@platformatic/kafka";

/** What Gapwatch reads of a KIP-848 consumer group: its state and how many members it has. */
export interface DescribedConsumerGroup {
  errorCode: number;
  groupId: string;
  groupState: string;
  members: number;
}

/** ConsumerGroupDescribe v0 response, reduced to what Gapwatch reads. */
export interface ConsumerGroupDescribeResponse {
  groups: DescribedConsumerGroup[];
}

/** API key of ConsumerGroupDescribe (KIP-848). */
const consumerGroupDescribeKey = 69;

function createRequest(groupIds: string[], includeAuthorizedOperations: boolean): Writer {
  return Writer.create()
    .appendArray(groupIds, (w, id) => w.appendString(id), true, false)
    .appendBoolean(includeAuthorizedOperations)
    .appendTaggedFields();
}

/** An Assignment struct: [topic_partitions] then the struct's own tagged fields. */
function skipAssignment(r: Reader): void {
  r.readArray((t) => {
    t.readUUID();
    t.readString();
    t.readArray((p) => p.readInt32(), true, false);
  });
  r.readTaggedFields();
}

/**
 * Follows Kafka's ConsumerGroupDescribeResponse.json v0 field by field. platformatic 1.35's parser
 * reads `subscribed_topic_names` (an array) as one string and skips the Assignment structs' tagged
 * fields, which garbles the response of any group that has members.
 */
function parseResponse(_correlationId: number, _apiKey: number, _apiVersion: number, reader: Reader): ConsumerGroupDescribeResponse {
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
      m.readNullableString(); // instance_id
      m.readNullableString(); // rack_id
      m.readInt32(); // member_epoch
      m.readString(); // client_id
      m.readString(); // client_host
      m.readArray((s) => s.readString(), true, false); // subscribed_topic_names
      m.readNullableString(); // subscribed_topic_regex
      skipAssignment(m); // assignment
      skipAssignment(m); // target_assignment
      return null;
    });
    g.readInt32(); // authorized_operations
    return { errorCode, groupId, groupState, members: members.length };
  });
  return { groups };
}

/** ConsumerGroupDescribe v0: state and member count of consumer-protocol (KIP-848) groups. */
export const consumerGroupDescribeV0 = createAPI<[groupIds: string[], includeAuthorizedOperations: boolean], ConsumerGroupDescribeResponse>(
  consumerGroupDescribeKey,
  0,
  createRequest,
  parseResponse,
);
