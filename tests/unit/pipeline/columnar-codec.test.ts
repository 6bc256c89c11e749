import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeColumnar, encodeColumnar, isColumnar } from "@/lib/pipeline/columnar-codec";
import { decodeReadModel } from "@/lib/pipeline/published-read-models";
import { encodeTagged } from "@/lib/pipeline/read-model-codec";
import { makeColumnarSample } from "./columnar-sample";

/** makeColumnarSample() as the previous version published it (fixtures/make-columnar-text-v1.ts). */
const previousTextForm = readFileSync(path.join(import.meta.dirname, "fixtures/columnar-text-v1.txt"));

const ABOVE_2_53 = 9007199254740993n;
const MAX_INT64 = 9223372036854775807n;

/** Rows alike, as a flow's partitions are: offsets above 2^32 (and one above 2^53), optional and nullable fields. */
function makeRows(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    topic: `orders-${i % 37}`,
    partition: i,
    sourceLogEnd: 5_000_000_000n + BigInt(i) * 4_294_967_311n,
    mm2Position: i % 5 === 0 ? null : 4_294_967_296n + BigInt(i),
    lag: i === 7 ? ABOVE_2_53 : BigInt(i % 3),
    rate: i % 2 === 0 ? i / 3 : -i,
    latestSync: i % 4 === 0 ? null : { upstream: BigInt(i) << 33n, downstream: BigInt(i) },
    replicas: i % 9 === 0 ? [] : [1, 2, 3].slice(0, (i % 3) + 1),
    unknown: null,
    stale: i % 6 === 0,
    ...(i % 10 === 3 ? { copierChange: { from: "mm2-a", at: 1_796_000_000_000 + i } } : {}),
  }));
}

describe("columnar read-model codec", () => {
  it("round-trips 5,000 rows with offsets above 2^32 and 2^53, nulls, optional fields and nested arrays exactly", () => {
    const rows = makeRows(5000);
    const decoded = decodeColumnar(encodeColumnar({ rows })) as { rows: ReturnType<typeof makeRows> };
    expect(decoded.rows).toEqual(rows);
    expect(decoded.rows[7]!.lag).toBe(ABOVE_2_53);
    expect(decoded.rows[4999]!.sourceLogEnd).toBe(5_000_000_000n + 4999n * 4_294_967_311n);
    expect(Object.keys(decoded.rows[3]!)).toEqual(Object.keys(rows[3]!));
    expect(Object.hasOwn(decoded.rows[4]!, "copierChange")).toBe(false);
  });

  it("round-trips every kind of value: int64 limits, bigints beyond int64, NaN, infinities, -0, Maps, Sets, typed arrays", () => {
    const value = {
      bigints: [0n, -1n, ABOVE_2_53, MAX_INT64, -MAX_INT64 - 1n, ...Array.from({ length: 20 }, (_, i) => BigInt(i))],
      huge: [MAX_INT64 + 1n, -(2n ** 70n), ...Array.from({ length: 20 }, (_, i) => BigInt(i))],
      numbers: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0.5, 2 ** 40, ...Array.from({ length: 10 }, (_, i) => i)],
      single: -0,
      byKey: new Map<string, unknown>([["east->west|orders|2", [{ upstream: 1199n, downstream: 5199n }]], ["nested", new Map([[3, new Set([1n, 2n])]])]]),
      byBigint: new Map([[ABOVE_2_53, "x"]]),
      groups: new Set(Array.from({ length: 100 }, (_, i) => `group-${i}`)),
      positions: BigInt64Array.from([5n, -7n, ABOVE_2_53]),
      known: Uint8Array.from([1, 0, 1]),
      starts: Float64Array.from([1.5, Number.NaN, 2 ** 52]),
      mixed: [1, "one", 1n, null, undefined, true, { a: 1 }, [2], new Map([[1, 2]]), ...Array.from({ length: 10 }, () => null)],
      same: Array.from({ length: 50 }, () => "constant"),
      empty: { list: [], map: new Map(), set: new Set(), object: {} },
      lookalikes: { $t: "map", v: [["k", 1]], c: ["c", 1], text: "\u00011234" },
    };
    const decoded = decodeColumnar(encodeColumnar(value)) as typeof value;
    expect(decoded).toEqual(value);
    expect(Object.is(decoded.numbers[3], -0)).toBe(true);
    expect(Object.is(decoded.single, -0)).toBe(true);
    expect(decoded.huge[0]).toBe(MAX_INT64 + 1n);
    expect(decoded.positions).toBeInstanceOf(BigInt64Array);
    expect(decoded.known).toBeInstanceOf(Uint8Array);
    expect(decoded.starts).toBeInstanceOf(Float64Array);
    expect(decoded.byKey).toBeInstanceOf(Map);
    expect(decoded.groups).toBeInstanceOf(Set);
    expect(decoded.byBigint.get(ABOVE_2_53)).toBe("x");
    expect(decoded.mixed[4]).toBeUndefined();
    expect(decoded.mixed).toHaveLength(19);
  });

  it("keeps a property named __proto__ as data, never as the prototype", () => {
    const rows = Array.from({ length: 20 }, (_, i) => JSON.parse(`{"__proto__": {"polluted": ${i}}, "n": ${i}}`) as Record<string, unknown>);
    const single = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const decoded = decodeColumnar(encodeColumnar({ rows, single })) as { rows: Record<string, unknown>[]; single: Record<string, unknown> };
    expect(Object.getPrototypeOf(decoded.rows[3])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(decoded.rows[3], "__proto__")?.value).toEqual({ polluted: 3 });
    expect(Object.getPrototypeOf(decoded.single)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("decodes a long array when it is first read, then holds it as a plain property", () => {
    const value = { small: [1, 2, 3], rows: makeRows(1000), groups: [{ name: "g", partitions: makeRows(500) }, { name: "h", partitions: makeRows(300) }] };
    const decoded = decodeColumnar(encodeColumnar(value)) as typeof value;
    expect(Object.getOwnPropertyDescriptor(decoded, "small")).toHaveProperty("value");
    expect(Object.getOwnPropertyDescriptor(decoded, "rows")).toHaveProperty("get");
    expect(decoded.rows[999]).toEqual(value.rows[999]);
    expect(Object.getOwnPropertyDescriptor(decoded, "rows")).toHaveProperty("value");
    expect(decoded.rows).toBe(decoded.rows);
    // Arrays inside rows (a group's partitions): each row's decodes when read.
    const group = decoded.groups[1]!;
    expect(Object.getOwnPropertyDescriptor(group, "partitions")).toHaveProperty("get");
    expect(group.partitions).toEqual(value.groups[1]!.partitions);
    expect(decoded.groups[0]!.partitions).toEqual(value.groups[0]!.partitions);
    // Assigned before it was read, it is the assigned value.
    const again = decodeColumnar(encodeColumnar(value)) as typeof value;
    again.rows = [];
    expect(again.rows).toEqual([]);
  });

  it("reads a long array of an object frozen before it was read", () => {
    const value = { rows: makeRows(200) };
    const decoded = Object.freeze(decodeColumnar(encodeColumnar(value))) as typeof value;
    expect(decoded.rows).toEqual(value.rows);
    expect(decoded.rows).toBe(decoded.rows);
  });

  it("lets a web instance read a model published by a collector of an older version (tagged JSON lines)", async () => {
    const model = { snapshot: { cycle: 3, rows: makeRows(300) }, byKey: new Map([["k", [1n, ABOVE_2_53]]]) };
    const previous = Buffer.from(encodeTagged(model));
    expect(isColumnar(previous)).toBe(false);
    expect(isColumnar(encodeColumnar(model))).toBe(true);
    expect(await decodeReadModel(previous)).toEqual(model);
  });

  it("decodes the previous text form (the blob as base64) that an older collector wrote, to the same value", async () => {
    expect(previousTextForm.subarray(0, 20).toString()).toBe("gapwatch-columnar 1\n");
    expect(isColumnar(previousTextForm)).toBe(true);
    const decoded = decodeColumnar(previousTextForm) as ReturnType<typeof makeColumnarSample>;
    expect(decoded).toEqual(makeColumnarSample());
    expect(Object.is((decoded.numbers as number[])[2], -0)).toBe(true);
    expect(decoded.positions).toBeInstanceOf(BigInt64Array);
    expect(await decodeReadModel(previousTextForm)).toEqual(makeColumnarSample());
  });

  it("writes the blob as bytes: one header line, then the blob 8-byte aligned, a quarter smaller than the text form", () => {
    const bytes = encodeColumnar(makeColumnarSample());
    const second = bytes.indexOf(10, bytes.indexOf(10) + 1);
    expect(bytes.subarray(0, 20).toString()).toBe("gapwatch-columnar 2\n");
    // The same header (the runs' offsets aside: the text form aligned them to 24 bytes, this one to 8).
    const header = (body: Buffer) => body.toString("utf8", body.indexOf(10) + 1, body.indexOf(10, body.indexOf(10) + 1)).replace(/\d+/g, "#");
    expect(header(bytes)).toBe(header(previousTextForm));
    expect(bytes.subarray(second + 1, Math.ceil((second + 1) / 8) * 8).every((b) => b === 0)).toBe(true);
    expect(bytes.length).toBeLessThan(previousTextForm.length * 0.8);
  });

  it("decodes a body at any byte offset of its memory (copying a run that is not aligned for its typed array)", () => {
    const value = makeColumnarSample();
    const bytes = encodeColumnar(value);
    for (const shift of [0, 1, 3, 4, 7]) {
      const memory = Buffer.alloc(bytes.length + 8, 0xff);
      bytes.copy(memory, shift);
      expect(decodeColumnar(memory.subarray(shift, shift + bytes.length)), `shifted by ${shift}`).toEqual(value);
    }
  });

  it("says what is wrong with a body it did not write", () => {
    expect(() => decodeColumnar(Buffer.from('{"x":1}'))).toThrow('not a columnar read model (it should start with "gapwatch-columnar 2")');
    expect(() => decodeColumnar(Buffer.from("gapwatch-columnar 3\n{}\n"))).toThrow("not a columnar read model");
    expect(() => encodeColumnar({ when: new Date(0) })).toThrow("cannot encode a Date in a read model");
  });
});
