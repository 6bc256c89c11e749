/**
 * A flow's partitions written a column at a time (served-flows.ts) encode byte for byte as the same partitions written
 * value by value into the encoder's sink (each made by FlowRows.makePartition and handed over whole, the path a
 * partition took before), and as the made partitions' array: over rows whose columns are all null, never null or
 * mixed, listed in sorted runs or shuffled, copier changes (first, none, all), rare fields, tails present or absent,
 * sync points of other keys or beyond 2^53 among plain ones,
 * many flows sharing one column (written one after the other into the same sink) and flows beyond 2^53 among them.
 */
import { describe, expect, it } from "vitest";
import { FlowRows, definePartitionsOnDemand, offsetFields, PartitionTails } from "@/lib/collector/flow-rows";
import type { CopierChange, Flow, OffsetSyncPoint } from "@/lib/collector/types";
import { encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { type ColumnarRows, type ColumnBlockSink, columnarRows } from "@/lib/pipeline/columnar-source";
import { serveFlowRows } from "@/lib/pipeline/served-flows";
import { createRandom } from "../seeded-random";

/** How often each kind of value appears in a case's rows (0: never, 1: every row). */
interface Odds {
  nulls: number;
  changes: number;
  rare: number;
  sorted: boolean;
  tails: "none" | "some" | "all";
  beyond: boolean;
  /** Sync points not as the sync store makes them (other keys, an offset beyond 2^53) among the plain ones. */
  oddSyncs: boolean;
}

interface RowsCase {
  rows: FlowRows;
  tails: PartitionTails | undefined;
}

const change: CopierChange = { from: "mm2-a", fromPosition: 4n, logStartAtChange: 0n, logEndAtChange: 9n, at: 5 };
const syncs: OffsetSyncPoint[] = [{ upstream: 10n, downstream: 7n }, { upstream: 2n ** 40n, downstream: 5n }];
const oddSyncs = [
  { downstream: 1n, upstream: 2n },
  { upstream: 2n ** 60n + 3n, downstream: 1n },
  { upstream: 3n, downstream: 4n, note: "x" },
  { upstream: 3n, downstream: undefined },
  Object.assign(Object.create(null) as object, { upstream: 5n, downstream: 6n }),
] as OffsetSyncPoint[];

function createRowsCase(random: () => number, length: number, odds: Odds, first: { changed: boolean }): RowsCase {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const isNull = () => random() < odds.nulls;
  // One kind of odd point a case: each sends the flow's syncs value by value for its own reason.
  const odd = pick(oddSyncs);
  const rows = new FlowRows(length);
  const topics = 1 + Math.floor(random() * 5);
  for (let t = 0; t < topics; t++) {
    rows.topics.push({ topic: `t${t}`, targetTopic: `east.t${t}`, sourceTopicId: isNull() ? null : `id-${t}` });
  }
  for (let at = 0; at < length; at++) {
    const changed = at === 0 ? first.changed : random() < odds.changes;
    rows.put(at, odds.sorted ? Math.floor((at * topics) / length) : Math.floor(random() * topics), {
      partition: at,
      sourceConnector: isNull() ? null : pick(["mm2-a", "mm2-b"]),
      sourceLeaderEpoch: isNull() ? null : Math.floor(random() * 9),
      positionSource: isNull() ? null : pick(["committed", "offset-sync"] as const),
      latestSync: isNull() ? null : odds.oddSyncs && random() < 0.1 ? odd : pick(syncs),
      copierChange: changed ? { ...change, fromPosition: pick([null, 4n]) } : pick([undefined, null]),
      targetDensityIssue: random() < odds.rare ? "gaps below the position" : null,
      unknown: random() < odds.rare ? { reason: "west ListOffsets: NOT_LEADER", dataAt: pick([null, 1_000]) } : null,
      flags: 0,
    });
    for (const field of offsetFields) {
      const r = random();
      const big = BigInt(Math.floor(random() * 1e12));
      const value = isNull() ? null : r < 0.2 ? 0n : r < 0.3 ? 2n ** 53n - 1n : r < 0.35 ? -5n : big;
      rows.putOffset(at, field, value);
    }
  }
  if (odds.beyond && length > 0) rows.putOffset(Math.floor(random() * length), "mm2Position", 2n ** 60n + 3n);
  const order = Array.from({ length }, (_, i) => i);
  if (!odds.sorted) order.sort(() => random() - 0.5);
  rows.order = Int32Array.from(order);
  if (odds.tails === "none") return { rows, tails: undefined };
  const tails = new PartitionTails(length);
  const all = odds.tails === "all";
  for (let i = 0; i < length; i++) {
    tails.markers[i] = all || random() < 0.2 ? 1 : random() < 0.05 ? 2 : 0;
    if (all || random() < 0.4) tails.recordLag[i] = Math.floor(random() * 1_000);
    if (all || random() < 0.4) tails.oldest[i] = 1_700_000_000_000 + Math.floor(random() * 1e6);
  }
  return { rows, tails };
}

/**
 * The partitions handed to the sink one made partition at a time (ColumnBuilder.value, value by value). A class: the
 * encoder takes a plain object for an object to write, not for rows.
 */
class ValueByValueRows implements ColumnarRows {
  readonly [columnarRows] = true as const;

  constructor(private readonly rowsCase: RowsCase) {}

  get length(): number {
    return this.rowsCase.rows.order.length;
  }

  writeRows(sink: ColumnBlockSink): void {
    const { rows, tails } = this.rowsCase;
    for (let i = 0; i < rows.order.length; i++) sink.value(rows.makePartition(i, tails));
  }

  listRows(): readonly unknown[] {
    return this.rowsCase.rows.makePartitions(this.rowsCase.tails);
  }
}

function valueByValue(rowsCase: RowsCase): ColumnarRows {
  return new ValueByValueRows(rowsCase);
}

function createFlow(id: string, { rows, tails }: RowsCase): Flow {
  const flow = { id, source: "west", target: "east", partitions: [], errors: [] } as unknown as Flow;
  definePartitionsOnDemand(flow, rows, () => undefined, tails);
  return flow;
}

/** Flow `f` as createFlow makes it (the same keys in the same order), its partitions `partitions`. */
function flowOf(f: number, partitions: unknown): unknown {
  return { id: `f${f}`, source: "west", target: "east", partitions, errors: [] };
}

function randomOdds(random: () => number): Odds {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  return {
    nulls: pick([0, 0.2, 0.6, 1]),
    changes: pick([0, 0.1, 1]),
    rare: pick([0, 0.1, 1]),
    sorted: random() < 0.5,
    tails: pick(["none", "some", "all"] as const),
    beyond: random() < 0.15,
    oddSyncs: random() < 0.3,
  };
}

describe("a flow's partitions written a column at a time", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("encode as written value by value (seed %i)", (seed) => {
    const random = createRandom(100 + seed);
    // One flow (its partitions a column of their own), and 12 flows (one column of all their partitions, in turn).
    for (const flowCount of [1, 2, 12]) {
      const cases = Array.from({ length: flowCount }, (_, f) => {
        const length = f === 1 ? 0 : f === 2 ? 9 : 10 + Math.floor(random() * 200);
        return createRowsCase(random, length, randomOdds(random), { changed: random() < 0.3 });
      });
      const served = encodeColumnar({ flows: serveFlowRows(cases.map((c, f) => createFlow(`f${f}`, c))) });
      const expected = encodeColumnar({ flows: cases.map((c, f) => flowOf(f, valueByValue(c))) });
      const made = cases.map((c, f) => flowOf(f, c.rows.makePartitions(c.tails)));
      expect(served.equals(expected), `seed ${seed}, ${flowCount} flows`).toBe(true);
      expect(expected.equals(encodeColumnar({ flows: made })), `seed ${seed}, ${flowCount} flows`).toBe(true);
    }
  });

  it("encode as written value by value where every value of a column is alike or null", () => {
    const random = createRandom(42);
    for (const nulls of [0, 1]) {
      for (const changes of [0, 1]) {
        for (const tails of ["none", "all"] as const) {
          const odds: Odds = { nulls, changes, rare: changes, sorted: true, tails, beyond: false, oddSyncs: false };
          const cases = [
            createRowsCase(random, 150, odds, { changed: changes === 1 }),
            createRowsCase(random, 90, odds, { changed: false }),
          ];
          const served = encodeColumnar({ flows: serveFlowRows(cases.map((c, f) => createFlow(`f${f}`, c))) });
          const expected = encodeColumnar({ flows: cases.map((c, f) => flowOf(f, valueByValue(c))) });
          expect(served.equals(expected), `nulls ${nulls}, changes ${changes}, tails ${tails}`).toBe(true);
        }
      }
    }
  });
});
