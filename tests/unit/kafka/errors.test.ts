import { MultipleErrors, NetworkError, ResponseError, TimeoutError } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { KafkaUnreachableError } from "@/lib/errors";
import { describeKafkaError, isNetworkFailure, isTimeout, kafkaErrorName, KafkaRequestError, toClusterError, toUnreachableError } from "@/lib/kafka/errors";
import { resolveConnection } from "@/lib/kafka/options";

const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9092"), { code: "ECONNREFUSED" });
const noBroker = new MultipleErrors("Cannot connect to any broker.", [new NetworkError("Connection to 127.0.0.1:9092 failed.", { cause: refused })]);
const conn = resolveConnection({ alias: "east", bootstrap: ["127.0.0.1:9092"], requestTimeoutMs: 2000 });

describe("kafkaErrorName", () => {
  it("names protocol error codes like Kafka's Errors enum", () => {
    expect(kafkaErrorName(1)).toBe("OFFSET_OUT_OF_RANGE");
    expect(kafkaErrorName(6)).toBe("NOT_LEADER_OR_FOLLOWER");
    expect(kafkaErrorName(9999)).toBe("KAFKA_ERROR_9999");
  });
});

describe("describeKafkaError", () => {
  it("digs out the innermost cause instead of platformatic's wrappers", () => {
    expect(describeKafkaError(noBroker)).toBe("connect ECONNREFUSED 127.0.0.1:9092");
  });

  it("says how long a timed-out request waited", () => {
    expect(describeKafkaError(new TimeoutError("Request timed out"), 2000)).toBe("Request timed out (no answer within 2000 ms)");
  });

  it("names protocol errors by their Kafka name", () => {
    expect(describeKafkaError(new ResponseError(16, 5, { "/": [15, null] }, {}))).toBe("COORDINATOR_NOT_AVAILABLE");
  });
});

describe("isNetworkFailure / isTimeout", () => {
  it("treats refused connections and timeouts as no answer, protocol errors as an answer", () => {
    expect(isNetworkFailure(noBroker)).toBe(true);
    expect(isNetworkFailure(new TimeoutError("Request timed out"))).toBe(true);
    expect(isNetworkFailure(new ResponseError(2, 9, { "/topics/0/partitions/0": [6, null] }, {}))).toBe(false);
    expect(isTimeout(new MultipleErrors("x", [new TimeoutError("Request timed out")]))).toBe(true);
    expect(isTimeout(noBroker)).toBe(false);
  });
});

describe("toUnreachableError / toClusterError", () => {
  it("names the alias, the bootstrap servers and the cause", () => {
    const err = toUnreachableError(conn, noBroker);
    expect(err).toBeInstanceOf(KafkaUnreachableError);
    expect(err.cluster).toBe("east");
    expect(err.message).toBe("cluster east (127.0.0.1:9092) unreachable: connect ECONNREFUSED 127.0.0.1:9092");
    expect(err.cause).toBe(noBroker);
  });

  it("maps an error answer to KafkaRequestError and keeps typed errors as they are", () => {
    const answered = toClusterError(conn, new ResponseError(16, 5, { "/": [15, null] }, {}), "ListGroups");
    expect(answered).toBeInstanceOf(KafkaRequestError);
    expect(answered.message).toBe("cluster east: ListGroups failed: COORDINATOR_NOT_AVAILABLE");
    const unreachable = toUnreachableError(conn, noBroker);
    expect(toClusterError(conn, unreachable, "Metadata")).toBe(unreachable);
  });
});
