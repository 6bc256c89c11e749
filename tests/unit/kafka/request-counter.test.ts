import { connectionsApiChannel } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { addToTally, type RawRequestTally, readApiEvent, RequestCounter, summarizeTally } from "@/lib/kafka/request-counter";

const brokers = [{ nodeId: 1, host: "127.0.0.1", port: 9092 }, { nodeId: 2, host: "127.0.0.1", port: 9093 }];

describe("readApiEvent", () => {
  it("reads api key, connection context and address from platformatic's send event", () => {
    const context = {};
    expect(readApiEvent({ operation: "send", apiKey: 3, connection: { context, host: "h", port: 1 } })).toEqual({ context, apiKey: 3, address: "h:1" });
  });

  it("ignores anything that is not a send event", () => {
    expect(readApiEvent({ operation: "connect", connection: {} })).toBeNull();
    expect(readApiEvent(null)).toBeNull();
  });
});

describe("summarizeTally", () => {
  it("names APIs and resolves addresses to broker ids, keeping unknown addresses as host:port", () => {
    const tally: RawRequestTally = new Map();
    addToTally(tally, 3, "127.0.0.1:9092");
    addToTally(tally, 2, "127.0.0.1:9092");
    addToTally(tally, 2, "127.0.0.1:9092");
    addToTally(tally, 2, "127.0.0.1:9093");
    addToTally(tally, 18, "localhost:9092");
    expect(summarizeTally(tally, brokers)).toEqual([
      { api: "ApiVersions", broker: "localhost:9092", count: 1 },
      { api: "ListOffsets", broker: "1", count: 2 },
      { api: "ListOffsets", broker: "2", count: 1 },
      { api: "Metadata", broker: "1", count: 1 },
    ]);
  });
});

describe("RequestCounter", () => {
  it("counts only requests of connections carrying its context, until reset or disposed", () => {
    const context = {};
    const counter = new RequestCounter(context);
    const publish = (ctx: object, apiKey: number) => connectionsApiChannel.start.publish({ operation: "send", apiKey, connection: { context: ctx, host: "127.0.0.1", port: 9092 } });
    publish(context, 3);
    publish({}, 3);
    publish(context, 2);
    expect(counter.counts(brokers)).toEqual([
      { api: "ListOffsets", broker: "1", count: 1 },
      { api: "Metadata", broker: "1", count: 1 },
    ]);
    counter.reset();
    expect(counter.counts(brokers)).toEqual([]);
    counter.dispose();
    publish(context, 3);
    expect(counter.counts(brokers)).toEqual([]);
  });
});
