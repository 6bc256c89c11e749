import { type Connection, Reader, Writer } from "@platformatic/kafka";
import { describe, expect, it } from "vitest";
import { consumerGroupDescribeV0 } from "@/lib/kafka/consumer-group-describe";
import { describeShareGroupOffsetsV0, describeShareGroupOffsetsV1, shareGroupDescribeV1 } from "@/lib/kafka/share-group-apis";
import { streamsGroupDescribeV0 } from "@/lib/kafka/streams-group-describe";

/**
 * Gapwatch's own codecs for streams and share groups, fed response bodies written field by field as
 * Kafka 4.3.1's generated schemas order them (StreamsGroupDescribeResponseData.SCHEMAS[0],
 * ShareGroupDescribeResponseData.SCHEMAS[1], DescribeShareGroupOffsetsResponseData.SCHEMAS[0..1]).
 * A fake connection runs the codec's request writer and response parser; every byte but the top-level
 * tagged fields must be consumed.
 */

type Callback = (err: Error | null, value?: unknown) => void;
type Send = (key: number, version: number, create: () => Writer, parse: (c: number, k: number, v: number, r: Reader) => unknown, ...rest: unknown[]) => void;

/** Calls `api` on a fake connection answering `body`; returns the request bytes and the parsed answer. */
function exchange<Res>(api: { (connection: Connection, ...args: never[]): void; key: number }, args: unknown[], body: Writer): Promise<{ request: Buffer; response: Res; left: number }> {
  return new Promise((resolve, reject) => {
    const send: Send = (key, version, create, parse, ...rest) => {
      const cb = rest.at(-1) as Callback;
      const reader = Reader.from(body.buffer);
      const response = parse(0, key, version, reader) as Res;
      resolve({ request: create().buffer, response, left: reader.remaining });
      cb(null, response);
    };
    const call = api as unknown as (connection: Connection, ...rest: unknown[]) => void;
    try {
      call({ send } as unknown as Connection, ...args, () => undefined);
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

const topicId = "6f1c2a0e-0000-4000-8000-000000000001";
const strings = (w: Writer, values: string[]) => w.appendArray(values, (x, v) => x.appendString(v), true, false);
const int32s = (w: Writer, values: number[]) => w.appendArray(values, (x, v) => x.appendInt32(v), true, false);

describe("StreamsGroupDescribe v0", () => {
  const keyValues = (w: Writer, pairs: [string, string][]) => w.appendArray(pairs, (x, [k, v]) => x.appendString(k).appendString(v));
  const topicInfos = (w: Writer, names: string[]) => w.appendArray(names, (x, name) => keyValues(x.appendString(name).appendInt32(0).appendInt16(-1), [["cleanup.policy", "compact"]]));
  const taskIds = (w: Writer, partitions: number[]) => w.appendArray([["0_0", partitions] as const], (x, [sub, ps]) => int32s(x.appendString(sub), ps));
  const assignment = (w: Writer, partitions: number[]) => taskIds(taskIds(taskIds(w, partitions), []), []).appendTaggedFields();
  const taskOffsets = (w: Writer, offsets: bigint[]) => w.appendArray(offsets, (x, o, i) => x.appendString("0_0").appendInt32(i).appendInt64(o));
  const member = (w: Writer, id: string, endpoint: boolean) => {
    w.appendString(id).appendInt32(3).appendString(null).appendString("rack-a").appendString(`${id}-client`).appendString("/127.0.0.1").appendInt32(1).appendString("process-1");
    if (endpoint) w.appendInt8(1).appendString("host-1").appendUnsignedInt16(8080).appendTaggedFields();
    else w.appendInt8(-1);
    keyValues(w, [["zone", "a"]]);
    taskOffsets(w, [5n, 3n]);
    taskOffsets(w, [5n, 3n]);
    assignment(w, [0, 1]);
    assignment(w, [0, 1]);
    w.appendBoolean(false);
  };

  it("reads each group's state and member count through a full topology and members with every field", async () => {
    const body = Writer.create()
      .appendInt32(0)
      .appendArray(
        [
          { id: "wordcount", state: "Stable", topology: true, members: ["m1", "m2"] },
          { id: "fresh", state: "Empty", topology: false, members: [] },
          { id: "gone", state: "Dead", topology: false, members: [], error: 69 },
        ] as { id: string; state: string; topology: boolean; members: string[]; error?: number }[],
        (w, g) => {
          w.appendInt16(g.error ?? 0).appendString(g.error ? "not found" : null).appendString(g.id).appendString(g.state).appendInt32(4).appendInt32(4);
          if (g.topology) {
            w.appendInt8(1).appendInt32(1);
            w.appendArray(["0"], (x, sub) => {
              strings(x.appendString(sub), ["words"]);
              strings(x, ["wordcount-repartition"]);
              topicInfos(x, ["wordcount-store-changelog"]);
              topicInfos(x, ["wordcount-repartition"]);
            });
            w.appendTaggedFields();
          } else {
            w.appendInt8(-1);
          }
          w.appendArray(g.members, (x, id, i) => member(x, id, i === 0));
          w.appendInt32(-2147483648);
        },
      )
      .appendTaggedFields();
    const { request, response, left } = await exchange(streamsGroupDescribeV0, [["wordcount", "fresh", "gone"], false], body);
    expect(response).toEqual({
      groups: [
        { errorCode: 0, groupId: "wordcount", groupState: "Stable", members: 2 },
        { errorCode: 0, groupId: "fresh", groupState: "Empty", members: 0 },
        { errorCode: 69, groupId: "gone", groupState: "Dead", members: 0 },
      ],
    });
    expect(left).toBe(1); // the top-level tagged fields, which platformatic's own parsers leave unread too
    // group_ids (compact array of compact strings), include_authorized_operations, tagged fields.
    expect([...request]).toEqual([4, 10, ...Buffer.from("wordcount"), 6, ...Buffer.from("fresh"), 5, ...Buffer.from("gone"), 0, 0]);
    expect(streamsGroupDescribeV0.key).toBe(89);
  });
});

describe("ShareGroupDescribe v1", () => {
  it("reads state and member count through members with assignments", async () => {
    const body = Writer.create()
      .appendInt32(0)
      .appendArray(["queue-a"], (w, id) => {
        w.appendInt16(0).appendString(null).appendString(id).appendString("Stable").appendInt32(2).appendInt32(2).appendString("simple");
        w.appendArray(["s1", "s2", "s3"], (x, m) => {
          strings(x.appendString(m).appendString(null).appendInt32(2).appendString(`${m}-client`).appendString("/127.0.0.1"), ["orders"]);
          x.appendArray([{ name: "orders", partitions: [0, 1, 2] }], (t, tp) => int32s(t.appendUUID(topicId).appendString(tp.name), tp.partitions)).appendTaggedFields();
        });
        w.appendInt32(-2147483648);
      })
      .appendTaggedFields();
    const { response, left } = await exchange(shareGroupDescribeV1, [["queue-a"], false], body);
    expect(response).toEqual({ groups: [{ errorCode: 0, groupId: "queue-a", groupState: "Stable", members: 3 }] });
    expect(left).toBe(1); // the top-level tagged fields, which platformatic's own parsers leave unread too
    expect([shareGroupDescribeV1.key, consumerGroupDescribeV0.key]).toEqual([77, 69]);
  });
});

describe("DescribeShareGroupOffsets", () => {
  const body = (withLag: boolean) =>
    Writer.create()
      .appendInt32(0)
      .appendArray(
        [
          { id: "queue-a", error: 0, partitions: [[0, 120n, 3, 7n, 0], [1, -1n, -1, -1n, 0], [2, 40n, 3, 0n, 0]] },
          { id: "queue-b", error: 16, partitions: [] },
        ] as { id: string; error: number; partitions: [number, bigint, number, bigint, number][] }[],
        (w, g) => {
          w.appendString(g.id);
          w.appendArray(g.partitions.length ? ["orders"] : [], (t, name) =>
            t.appendString(name).appendUUID(topicId).appendArray(g.partitions, (p, [index, start, epoch, lag, error]) => {
              p.appendInt32(index).appendInt64(start).appendInt32(epoch);
              if (withLag) p.appendInt64(lag);
              p.appendInt16(error).appendString(null);
            }),
          );
          w.appendInt16(g.error).appendString(g.error ? "not coordinator" : null);
        },
      )
      .appendTaggedFields();

  it("v1 reads start offsets, leader epochs and lags per partition, and a group's error", async () => {
    const { request, response, left } = await exchange(describeShareGroupOffsetsV1, [["queue-a", "queue-b"]], body(true));
    expect(response).toEqual({
      groups: [
        {
          groupId: "queue-a",
          errorCode: 0,
          partitions: [
            { topic: "orders", partition: 0, startOffset: 120n, leaderEpoch: 3, lag: 7n, errorCode: 0 },
            { topic: "orders", partition: 1, startOffset: -1n, leaderEpoch: -1, lag: null, errorCode: 0 },
            { topic: "orders", partition: 2, startOffset: 40n, leaderEpoch: 3, lag: 0n, errorCode: 0 },
          ],
        },
        { groupId: "queue-b", errorCode: 16, partitions: [] },
      ],
    });
    expect(left).toBe(1); // the top-level tagged fields, which platformatic's own parsers leave unread too
    // groups: [group_id, topics null (all topics), tagged fields] ×2, then the request's tagged fields.
    expect([...request]).toEqual([3, 8, ...Buffer.from("queue-a"), 0, 0, 8, ...Buffer.from("queue-b"), 0, 0, 0]);
  });

  it("v0 has no lag field: lags are unknown", async () => {
    const { response, left } = await exchange(describeShareGroupOffsetsV0, [["queue-a"]], body(false));
    expect(response).toMatchObject({ groups: [{ groupId: "queue-a", partitions: [{ startOffset: 120n, lag: null }, { startOffset: -1n, lag: null }, { startOffset: 40n, lag: null }] }, { groupId: "queue-b" }] });
    expect(left).toBe(1); // the top-level tagged fields, which platformatic's own parsers leave unread too
  });
});
