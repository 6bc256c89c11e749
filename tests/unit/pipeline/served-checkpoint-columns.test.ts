/**
 * A flow's checkpoints written a column at a time (served-checkpoints.ts) encode byte for byte as the same points
 * written value by value into the encoder's sink, and as the points' plain array: over no checkpoints, a few (an array
 * of up to 8 is written in the header), many groups and topics, points of other key order, extra, missing or
 * undefined keys, another prototype, other value types, null or an array for a point, offsets at and beyond 2^53
 * (each sends its flow value by value) among plain ones, and one to many flows sharing one column.
 */
import { describe, expect, it } from "vitest";
import type { CheckpointPoint, Flow } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "@/lib/pipeline/columnar-source";
import { serveFlowRows } from "@/lib/pipeline/served-flows";
import { createRandom } from "../seeded-random";

/** Points unlike the collector's, each of which sends its flow's checkpoints value by value. */
const oddPoints: readonly ((p: CheckpointPoint) => unknown)[] = [
  (p) => {
    const { group, ...rest } = p;
    return { ...rest, group };
  },
  (p) => ({ ...p, note: "x" }),
  (p) => ({ ...p, at: undefined }),
  (p) => {
    const rest: Partial<CheckpointPoint> = { ...p };
    delete rest.at;
    return rest;
  },
  (p) => Object.assign(Object.create(null) as object, p),
  (p) => ({ ...p, upstream: 2n ** 60n + 3n }),
  (p) => ({ ...p, downstream: 2n ** 53n }),
  (p) => ({ ...p, upstream: -(2n ** 53n) }),
  (p) => ({ ...p, downstream: 5 }),
  (p) => ({ ...p, group: 7 }),
  (p) => ({ ...p, partition: "3" }),
  (p) => ({ ...p, at: null }),
  () => null,
  (p) => [p.group, p.topic],
];

interface Odds {
  groups: number;
  topics: number;
  /** The chance that a point is odd (oddPoints, one kind a flow). */
  odd: number;
}

function createPoints(random: () => number, length: number, odds: Odds): CheckpointPoint[] {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const odd = pick(oddPoints);
  const offset = (): bigint => {
    const r = random();
    return r < 0.2 ? 0n : r < 0.3 ? 2n ** 53n - 1n : r < 0.35 ? -(2n ** 53n - 1n) : BigInt(Math.floor(random() * 1e12));
  };
  return Array.from({ length }, (_, i) => {
    const point: CheckpointPoint = {
      group: `group-${Math.floor((i * odds.groups) / Math.max(length, 1))}`,
      topic: `t${Math.floor(random() * odds.topics)}`,
      partition: Math.floor(random() * 12),
      upstream: offset(),
      downstream: offset(),
      // Mostly whole milliseconds, some numbers no int32 holds, some fractions, NaN and −0 once in a while.
      at: pick([1_700_000_000_000 + i, 5, 1.5, -0, Number.NaN, 2 ** 31, 1_000]),
    };
    return (random() < odds.odd ? odd(point) : point) as CheckpointPoint;
  });
}

/**
 * The points handed to the sink one at a time (ColumnBuilder.value, value by value). A class: the encoder takes a
 * plain object for an object to write, not for rows.
 */
class ValueByValueRows implements ColumnarRows {
  readonly [columnarRows] = true as const;

  constructor(private readonly points: readonly CheckpointPoint[]) {}

  get length(): number {
    return this.points.length;
  }

  writeRows(sink: ColumnBlockSink): void {
    for (const point of this.points) sink.value(point);
  }

  listRows(): readonly unknown[] {
    return this.points;
  }
}

/** A flow (only the properties the encoder meets), `checkpoints` among its keys as the collector's flows have it. */
function flowOf(f: number, checkpoints: unknown): Flow {
  return { id: `f${f}`, source: "west", target: "east", partitions: [], checkpoints, errors: [] } as unknown as Flow;
}

function randomOdds(random: () => number): Odds {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  return { groups: pick([1, 3, 40, 400]), topics: pick([1, 2, 9]), odd: pick([0, 0, 0.01, 0.3]) };
}

/** The three encodings of `lists` as flows' checkpoints: served, value by value, and as plain arrays. */
function encodeThreeWays(lists: readonly CheckpointPoint[][]): Buffer[] {
  return [
    encodeColumnar({ flows: serveFlowRows(lists.map((points, f) => flowOf(f, points))) }),
    encodeColumnar({ flows: lists.map((points, f) => flowOf(f, new ValueByValueRows(points))) }),
    encodeColumnar({ flows: lists.map((points, f) => flowOf(f, points)) }),
  ];
}

describe("a flow's checkpoints written a column at a time", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("encode as written value by value and as objects (seed %i)", (seed) => {
    const random = createRandom(300 + seed);
    // Up to 8 flows are written in the header one by one (each flow's checkpoints a column of their own), 12 as
    // columns (all their checkpoints one column, in turn).
    for (const flowCount of [1, 3, 12]) {
      const lists = Array.from({ length: flowCount }, (_, f) => {
        const length = f === 1 ? 0 : f === 2 ? 1 + Math.floor(random() * 8) : 9 + Math.floor(random() * 600);
        return createPoints(random, length, randomOdds(random));
      });
      const [served, valueByValue, objects] = encodeThreeWays(lists);
      expect(served!.equals(valueByValue!), `seed ${seed}, ${flowCount} flows`).toBe(true);
      expect(served!.equals(objects!), `seed ${seed}, ${flowCount} flows`).toBe(true);
      const decoded = (decodeColumnar(served!) as { flows: Flow[] }).flows.map((flow) => flow.checkpoints);
      expect(decoded, `seed ${seed}, ${flowCount} flows`).toEqual(lists);
    }
  });

  it("encode as written value by value with every kind of odd point, alone and among plain flows", () => {
    const random = createRandom(77);
    for (const [k, odd] of oddPoints.entries()) {
      const plain = createPoints(random, 50, { groups: 5, topics: 3, odd: 0 });
      const odds = createPoints(random, 50, { groups: 5, topics: 3, odd: 0 });
      odds[k % 50] = odd(odds[k % 50]!) as CheckpointPoint;
      const many = Array.from({ length: 10 }, (_, f) => (f === 4 ? odds : plain));
      for (const lists of [[odds], [plain, odds, plain], many]) {
        const [served, valueByValue, objects] = encodeThreeWays(lists);
        expect(served!.equals(valueByValue!), `odd point ${k}, ${lists.length} flows`).toBe(true);
        expect(served!.equals(objects!), `odd point ${k}, ${lists.length} flows`).toBe(true);
      }
    }
  });

  it("encode the checkpoints part alone (as publication-parts.ts does) as their plain arrays", () => {
    const random = createRandom(91);
    for (const flowCount of [1, 2, 9]) {
      const lists = Array.from({ length: flowCount }, () => createPoints(random, 200, randomOdds(random)));
      const served = serveFlowRows(lists.map((points, f) => flowOf(f, points))) as Flow[];
      const part = encodeColumnar(served.map((flow) => flow.checkpoints));
      expect(part.equals(encodeColumnar(lists)), `${flowCount} flows`).toBe(true);
    }
  });

  it("serve a flow without checkpoints as it is", () => {
    const without = { id: "f1", source: "west", target: "east", partitions: [], errors: [] } as unknown as Flow;
    const flows = [flowOf(0, []), without];
    const served = serveFlowRows(flows);
    expect(served[0]).toBe(flows[0]);
    expect(served[1]).toBe(flows[1]);
  });
});
