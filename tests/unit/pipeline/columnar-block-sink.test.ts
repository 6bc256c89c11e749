/**
 * Rows written into the encoder a run of values at a time (ColumnBlockSink: int64s, nullableInt64s, primitives,
 * strings, repeat, arrays, objects of several shapes or null, nested) encode byte for byte as the array of the values they
 * stand for, written one by one where the encoder is given made objects: over random plans of runs mixed with single
 * values of every kind (bigints beyond 2^53 and 2^63 included), as one ColumnarRows, and as consecutive ones of an
 * arrays column written together (writeRowsOf) among plain arrays and empty ones.
 */
import { describe, expect, it } from "vitest";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "@/lib/pipeline/columnar-source";
import { createRandom } from "../seeded-random";

type Random = () => number;

/** Writes a run of values into a sink; `values` are the values it stands for, in order. */
interface Plan {
  readonly values: unknown[];
  play(sink: ColumnBlockSink): void;
}

const names = ["none", "possible", "certain", "exact", "bracket"];
const shapePool: readonly (readonly string[])[] = [["kind", "low", "high"], ["kind", "reason"], ["min", "max"], ["low"]];

/** A random exact integer: small, above 2^32, or up to 2^53, of either sign. */
function makeInteger(random: Random): number {
  const scale = [10, 2 ** 33, 2 ** 53][Math.floor(random() * 3)]!;
  const v = Math.floor(random() * scale) * (random() < 0.2 ? -1 : 1);
  return v === 0 ? 0 : v;
}

/** A single value of any kind, written with `value` (or `int64`). */
function makeSingle(random: Random): Plan {
  const pick = Math.floor(random() * 11);
  if (pick === 0) {
    const v = makeInteger(random);
    return { values: [BigInt(v)], play: (sink) => sink.int64(v) };
  }
  const value = [
    null, "orders", 42, 1.5, 2n ** 60n + 1n, 2n ** 64n, { kind: "untranslatable", reason: "no-sync" }, [3, 1024, 5],
    [], [2, "x", null],
  ][pick - 1];
  return { values: [value], play: (sink) => sink.value(value) };
}

/** A run of `n` values written with one block method, the objects' properties and arrays' items by plans of their own. */
function makeRun(random: Random, n: number, depth: number): Plan {
  const pick = Math.floor(random() * (depth < 2 ? 7 : 5));
  switch (pick) {
    case 0: {
      const numbers = Float64Array.from({ length: n + 2 }, () => makeInteger(random));
      return { values: [...numbers.subarray(1, n + 1)].map(BigInt), play: (sink) => sink.int64s(numbers, 1, n + 1) };
    }
    case 1: {
      const numbers = Float64Array.from({ length: n }, () => (random() < 0.4 ? Number.NaN : makeInteger(random)));
      const values = [...numbers].map((v) => (Number.isNaN(v) ? null : BigInt(v)));
      return { values, play: (sink) => sink.nullableInt64s(numbers, 0, n) };
    }
    case 2: {
      const strings = random() < 0.5;
      const all = Array.from({ length: n + 1 }, (_, i) => (strings ? `topic-${Math.floor(random() * 5)}` : i * 1.25));
      return { values: all.slice(1), play: (sink) => sink.primitives(all as string[] | number[], 1, n + 1) };
    }
    case 3: {
      const codes = Uint8Array.from({ length: n }, () => Math.floor(random() * names.length));
      return { values: [...codes].map((c) => names[c]), play: (sink) => sink.strings(names, codes, 0, n) };
    }
    case 4: {
      const value = [null, "translated", 7][Math.floor(random() * 3)]!;
      return { values: new Array<unknown>(n).fill(value), play: (sink) => sink.repeat(value, n) };
    }
    case 5:
      return makeArrays(random, n, depth);
    default:
      return makeObjects(random, n, depth);
  }
}

/** `n` arrays of 0 to 6 items (empty ones in runs too), their items by a plan of their own. */
function makeArrays(random: Random, n: number, depth: number): Plan {
  const empty = random() < 0.3;
  const lengths = Uint32Array.from({ length: n + 1 }, () => (empty && random() < 0.8 ? 0 : Math.floor(random() * 7)));
  const counts = [...lengths.subarray(1)];
  const items = makeColumn(random, counts.reduce((a, b) => a + b, 0), depth + 1);
  let at = 0;
  const values = counts.map((count) => items.values.slice(at, (at += count)));
  return { values, play: (sink) => items.play(sink.arrays(lengths, 1, n + 1)) };
}

/** `n` objects of a few shapes, or null, their properties' values by plans of their own. */
function makeObjects(random: Random, n: number, depth: number): Plan {
  const shapes = shapePool.filter(() => random() < 0.6);
  if (shapes.length === 0) shapes.push(shapePool[0]!);
  const shapeOf = Uint8Array.from({ length: n }, () => (random() < 0.2 ? 0xff : Math.floor(random() * shapes.length)));
  const keys = [...new Set(shapes.flat())];
  const plans = keys.map((key) => {
    const count = [...shapeOf].filter((s) => shapes[s]?.includes(key)).length;
    return makeColumn(random, count, depth + 1);
  });
  const cursors = keys.map(() => 0);
  const values = [...shapeOf].map((s) => {
    const shape = shapes[s];
    if (shape === undefined) return null;
    const row: Record<string, unknown> = {};
    for (const key of shape) {
      const k = keys.indexOf(key);
      row[key] = plans[k]!.values[cursors[k]!++];
    }
    return row;
  });
  return {
    values,
    play: (sink) => {
      const sinks = sink.objects(shapes, shapeOf, 0, n);
      plans.forEach((plan, k) => plan.play(sinks[k]!));
    },
  };
}

/** `n` values: runs of block writes and single values, in random order. */
function makeColumn(random: Random, n: number, depth: number): Plan {
  const parts: Plan[] = [];
  for (let left = n; left > 0; ) {
    const part = random() < 0.3 ? makeSingle(random) : makeRun(random, 1 + Math.floor(random() * Math.min(left, 40)), depth);
    parts.push(part);
    left -= part.values.length;
  }
  return { values: parts.flatMap((p) => p.values), play: (sink) => parts.forEach((p) => p.play(sink)) };
}

/** Rows held as a plan, written by it (writeRowsOf: several such rows one after the other). */
class PlannedRows implements ColumnarRows {
  readonly [columnarRows] = true as const;
  constructor(private readonly plan: Plan) {}

  get length(): number {
    return this.plan.values.length;
  }

  writeRows(sink: ColumnBlockSink): void {
    this.plan.play(sink);
  }

  writeRowsOf(all: readonly ColumnarRows[], sink: ColumnBlockSink): void {
    for (const rows of all) (rows as PlannedRows).plan.play(sink);
  }

  listRows(): readonly unknown[] {
    return this.plan.values;
  }
}

describe("rows written a run of values at a time", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("encode as the values they stand for, one ColumnarRows (seed %i)", (seed) => {
    const random = createRandom(seed);
    for (let round = 0; round < 20; round++) {
      const plan = makeColumn(random, 9 + Math.floor(random() * 200), 0);
      const encoded = encodeColumnar({ rows: new PlannedRows(plan) });
      expect(encoded.equals(encodeColumnar({ rows: plan.values })), `round ${round}`).toBe(true);
      expect((decodeColumnar(encoded) as { rows: unknown }).rows).toEqual(plan.values);
    }
  });

  it.each([1, 2, 3, 4])("encode as the values they stand for, many in an arrays column among plain arrays (seed %i)", (seed) => {
    const random = createRandom(100 + seed);
    for (let round = 0; round < 10; round++) {
      const groups = Array.from({ length: 9 + Math.floor(random() * 30) }, () => {
        const plan = makeColumn(random, Math.floor(random() * 30), 0);
        return random() < 0.2 ? plan.values : new PlannedRows(plan);
      });
      const made = groups.map((g) => (g instanceof PlannedRows ? g.listRows() : g));
      const encoded = encodeColumnar({ groups: groups.map((partitions) => ({ group: "g", partitions })) });
      expect(encoded.equals(encodeColumnar({ groups: made.map((partitions) => ({ group: "g", partitions })) })), `round ${round}`).toBe(true);
    }
  });
});
