/**
 * A flow's partitions published from its rows (served-flows.ts) encode byte for byte as the partitions made from them
 * (FlowRows.makePartition, the source tails applied), and make no partitions array: over random flows (nulls, unknown
 * data, copier changes, tails present or absent, several topics, no partitions, an offset beyond 2^53) and over the
 * synthetic world's cycles through the whole pipeline and publication.
 */
import { describe, expect, it } from "vitest";
import {
  countPartitionArraysMade, definePartitionsOnDemand, findFlowRows, FlowRows, offsetFields, PartitionTails,
} from "@/lib/collector/flow-rows";
import { listSyncHistories } from "@/lib/collector/sync-history";
import type { Flow, OffsetSyncPoint } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { decodeReadModel, encodeReadModel } from "@/lib/pipeline/published-read-models";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { trimReadModel } from "@/lib/pipeline/served-read-model";
import { serveFlowRows } from "@/lib/pipeline/served-flows";
import { createRandom } from "../seeded-random";
import { runSyntheticPipeline } from "./synthetic-pipeline";

interface RowsCase {
  rows: FlowRows;
  tails: PartitionTails | undefined;
}

/** Random rows of `length` partitions over a few topics, listed shuffled, and (one time in two) random tails. */
function createRowsCase(random: () => number, length: number, options: { beyond?: boolean } = {}): RowsCase {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const rows = new FlowRows(length);
  const topics = 1 + Math.floor(random() * 4);
  for (let t = 0; t < topics; t++) {
    rows.topics.push({ topic: `t${t}`, targetTopic: `east.t${t}`, sourceTopicId: random() < 0.2 ? null : `id-${t}` });
  }
  const syncs: OffsetSyncPoint[] = [{ upstream: 10n, downstream: 7n }, { upstream: 2n ** 40n, downstream: 5n }];
  for (let at = 0; at < length; at++) {
    rows.put(at, Math.floor(random() * topics), {
      partition: at,
      sourceConnector: pick([null, "mm2-a", "mm2-b"]),
      sourceLeaderEpoch: random() < 0.3 ? null : Math.floor(random() * 9),
      positionSource: pick([null, "committed", "offset-sync"] as const),
      latestSync: random() < 0.4 ? null : pick(syncs),
      copierChange: random() < 0.1 ? { from: "mm2-a", fromPosition: pick([null, 4n]), logStartAtChange: 0n, logEndAtChange: 9n, at: 5 } : undefined,
      targetDensityIssue: random() < 0.1 ? "gaps below the position" : null,
      unknown: random() < 0.1 ? { reason: "west ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: pick([null, 1_000]) } : null,
      flags: 0,
    });
    for (const field of offsetFields) {
      const r = random();
      const value = r < 0.15 ? null : r < 0.3 ? 0n : r < 0.4 ? 2n ** 53n - 1n : BigInt(Math.floor(random() * 1e12));
      rows.putOffset(at, field, value);
    }
  }
  if (options.beyond === true && length > 0) rows.putOffset(length - 1, "sourceLogEnd", 2n ** 60n + 3n);
  const order = Array.from({ length }, (_, i) => i).sort(() => random() - 0.5);
  rows.order = Int32Array.from(order);
  if (random() < 0.5) return { rows, tails: undefined };
  const tails = new PartitionTails(length);
  for (let i = 0; i < length; i++) {
    tails.markers[i] = random() < 0.2 ? 1 : 0;
    if (random() < 0.4) tails.recordLag[i] = Math.floor(random() * 1_000);
    if (random() < 0.4) tails.oldest[i] = 1_700_000_000_000 + Math.floor(random() * 1e6);
  }
  return { rows, tails };
}

/** A flow (only the properties the encoder meets) whose partitions are made from the rows when first read. */
function createFlow(id: string, { rows, tails }: RowsCase): Flow {
  const flow = { id, source: "west", target: "east", partitions: [], errors: [] } as unknown as Flow;
  definePartitionsOnDemand(flow, rows, () => undefined, tails);
  return flow;
}

/** The same flow with its partitions made as a plain array. */
function createMadeFlow(id: string, { rows, tails }: RowsCase): Flow {
  return { id, source: "west", target: "east", partitions: rows.makePartitions(tails), errors: [] } as unknown as Flow;
}

describe("a flow's partitions published from its rows", () => {
  it.each([1, 2, 3, 4, 5, 6])("encode as the partitions made from them, the tails applied (seed %i)", (seed) => {
    const random = createRandom(seed);
    // Few and many flows (an array of up to 8 is written value by value), few and many partitions, none at all.
    for (const flowCount of [1, 3, 12]) {
      const cases = Array.from({ length: flowCount }, (_, f) =>
        createRowsCase(random, f === 1 ? 0 : f === 2 ? 5 : 20 + Math.floor(random() * 300), { beyond: f === 3 }),
      );
      const flows = cases.map((c, f) => createFlow(`f${f}`, c));
      const made = cases.map((c, f) => createMadeFlow(`f${f}`, c));
      const arrays = countPartitionArraysMade();
      const served = encodeColumnar({ flows: serveFlowRows(flows) });
      expect(countPartitionArraysMade(), `${flowCount} flows`).toBe(arrays);
      expect(flows.every((flow) => findFlowRows(flow) !== undefined)).toBe(true);
      const expected = encodeColumnar({ flows: made });
      expect(served.equals(expected), `${flowCount} flows`).toBe(true);
      expect((decodeColumnar(served) as { flows: unknown }).flows).toEqual(made);
    }
  });

  it("write a flow whose partitions were made from its array, beside flows written from their rows", () => {
    const random = createRandom(7);
    const cases = Array.from({ length: 10 }, () => createRowsCase(random, 40));
    const flows = cases.map((c, f) => createFlow(`f${f}`, c));
    // Read once: the array is made and kept (a rule's evidence, an API route); the flow is then written from it.
    expect(flows[4]!.partitions).toHaveLength(40);
    expect(findFlowRows(flows[4]!)).toBeUndefined();
    const served = encodeColumnar({ flows: serveFlowRows(flows) });
    expect(served.equals(encodeColumnar({ flows: cases.map((c, f) => createMadeFlow(`f${f}`, c)) }))).toBe(true);
  });

  it("stay unmade in a dedicated-mode flow, whose status the trim redacts", () => {
    const random = createRandom(8);
    const cases = Array.from({ length: 3 }, () => createRowsCase(random, 30));
    const connector = { name: "mm2", type: "source", config: { "sasl.jaas.config": "secret", topics: ".*" } };
    const dedicate = (flow: Flow) => Object.assign(flow, { dedicatedStatus: { topic: "mm2-status", connectors: [connector], error: null } });
    const flows = cases.map((c, f) => dedicate(createFlow(`f${f}`, c)));
    const model = { snapshot: { clusters: [], connect: [], flows }, history: { offsetSyncs: new Map() }, offsetSyncsHeld: new Map() };
    const arrays = countPartitionArraysMade();
    const trimmed = trimReadModel(model as unknown as ReadModel).snapshot.flows;
    const served = encodeColumnar({ flows: serveFlowRows(trimmed) });
    expect(countPartitionArraysMade()).toBe(arrays);
    expect(trimmed.every((flow) => findFlowRows(flow) !== undefined)).toBe(true);
    expect(trimmed[0]!.dedicatedStatus!.connectors[0]!.config["sasl.jaas.config"]).not.toBe("secret");
    expect(flows[0]!.dedicatedStatus!.connectors[0]!.config["sasl.jaas.config"]).toBe("secret");
    const made = cases.map((c, f) => createMadeFlow(`f${f}`, c)).map((flow) => ({ ...flow, dedicatedStatus: trimmed[0]!.dedicatedStatus }));
    expect(served.equals(encodeColumnar({ flows: made }))).toBe(true);
    expect(Object.keys(trimmed[0]!)).toEqual(Object.keys(flows[0]!));
  });

  it("publish the synthetic world's cycles as the model made as objects, making no flow's partitions", async () => {
    await runSyntheticPipeline(4, async ({ cycle, process }) => {
      const model = await process();
      expect(model.snapshot.flows.every((flow) => findFlowRows(flow) !== undefined), `cycle ${cycle}`).toBe(true);
      const arrays = countPartitionArraysMade();
      const published = encodeReadModel(model);
      expect(countPartitionArraysMade(), `cycle ${cycle}`).toBe(arrays);
      const trimmed = trimReadModel(model);
      const made = encodeColumnar({ ...trimmed, history: { offsetSyncs: new Map(listSyncHistories(trimmed.history.offsetSyncs)) } });
      expect(countPartitionArraysMade(), `cycle ${cycle}`).toBeGreaterThan(arrays);
      expect(published.equals(made), `cycle ${cycle}`).toBe(true);
      expect((await decodeReadModel(published)).snapshot.flows).toEqual(model.snapshot.flows);
    });
  }, 120_000);
});
