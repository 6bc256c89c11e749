/**
 * The collector's refinement after buildFlow reads the flow's rows (partition-fields.ts) and writes the source tail's
 * refinement beside them (flow-rows.ts PartitionTails): over random flows and random tails it must choose the same
 * tail offsets and give flows whose made partitions, totals, lag column and single-partition reads equal the
 * per-object functions it replaced (reference-source-tails.ts), make no partitions array on the way, and its target
 * density, offset-sync step and ledger steps must answer on rows as on partition objects.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildFlow } from "@/lib/collector/flow-builder";
import { readFlowColumns } from "@/lib/collector/flow-columns";
import { countPartitionArraysMade, findFlowRows, readFlowPartition, readOldestUnreplicatedTimestamp } from "@/lib/collector/flow-rows";
import { hasPartitionIn } from "@/lib/collector/partition-fields";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { checkSyncStepWriters } from "@/lib/collector/sync-step-writers";
import { checkTargetDensity } from "@/lib/collector/target-density";
import { advanceTransactionLedgers } from "@/lib/collector/transaction-ledger-read";
import type { PartitionLedger } from "@/lib/collector/transaction-ledger";
import { type Flow, flowPartitionKey, type PartitionState, type TopicState } from "@/lib/collector/types";
import { applySourceTails, fetchSourceTails, type SourceTail } from "@/lib/collector/unreplicated-tail";
import type { ClusterReader, FetchedRecord, FetchRequestItem, FetchResult } from "@/lib/kafka";
import { createFetchReader } from "./fetch-reader";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";
import { buildReferenceFlow } from "./reference-flow-builder";
import { applyReferenceSourceTails, chooseReferenceTailItems } from "./reference-source-tails";
import { createRandom } from "../seeded-random";

const toJson = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
const listItems = (seen: FetchRequestItem[][]) => seen.map((items) => items.map((i) => `${i.topic}/${i.partition}@${i.offset}`));
const record = (offset: bigint, timestamp: number, value: string): FetchedRecord => ({ offset, timestamp, key: null, value: Buffer.from(value), headers: [] });

/** A reader answering each fetched item with `answer` (the same for both runs compared), recording the items. */
function createAnsweringReader(alias: string, answer: (item: FetchRequestItem) => FetchResult, seen: FetchRequestItem[][]): ClusterReader {
  return {
    ...createFetchReader(alias, {}, seen),
    fetchPartitions: (items: FetchRequestItem[]) => {
      seen.push(items);
      return Promise.resolve(new Map(items.map((i) => [`${i.topic}/${i.partition}`, answer(i)])));
    },
  };
}

/** One random cycle: lagging, derived, unread and idle partitions, offset syncs for some. */
function makeCycle(random: () => number, names: readonly string[], cycle: number, flowId: string, syncs: SyncHistoryStore, twice = true) {
  const source: TopicState[] = [];
  const target: TopicState[] = [];
  const positions = new Map<string, bigint>();
  for (const name of names.filter(() => random() < 0.8)) {
    const parts: Partial<PartitionState>[] = [];
    for (let p = 0; p < 1 + Math.floor(random() * 4); p++) {
      const logEnd = BigInt(100 * cycle + Math.floor(random() * 60));
      if (random() < 0.07) parts.push({ partition: p, logStart: null, logEnd: null, error: "NOT_LEADER_OR_FOLLOWER" });
      else parts.push({ partition: p, logStart: random() < 0.2 ? logEnd : 0n, logEnd });
      if (random() < 0.8) positions.set(`${name}/${p}`, logEnd - BigInt(Math.floor(random() * 8)) - 1n);
      if (random() < 0.4) syncs.append(flowPartitionKey(flowId, name, p), [{ upstream: logEnd - 6n, downstream: logEnd - 20n }]);
    }
    source.push(makeTopic(name, parts));
    target.push(makeTopic(`east.${name}`, parts.map((p) => (p.logEnd == null ? p : { ...p, logEnd: p.logEnd - 14n - BigInt(Math.floor(random() * 3)) }))));
  }
  // A topic listed twice now and then: buildFlow then makes the partitions while building (no rows).
  if (twice && cycle % 5 === 0 && source.length > 0) source.push({ ...source[0]! });
  return { source: makeCluster("east", source), target: makeCluster("west", target), readings: makeReadings({ positions, syncHistory: syncs }) };
}

/** Random source tails for every partition of `flow`, by `topic/partition`, deterministic in the offset asked. */
function makeSourceAnswers(random: () => number, flow: Flow): (item: FetchRequestItem) => FetchResult {
  const shapes = new Map<string, { records: number; toEnd: boolean; markers: number; at: number }>();
  for (const p of flow.partitions) {
    const shape = { records: Math.floor(random() * 6), toEnd: random() < 0.6, markers: random() < 0.15 ? 1 : 0, at: T0 + Math.floor(random() * 1e6) };
    shapes.set(`${p.topic}/${p.partition}`, shape);
  }
  return (item) => {
    const shape = shapes.get(`${item.topic}/${item.partition}`);
    if (shape === undefined || shape.records === 0 && !shape.toEnd) return { error: "NOT_LEADER_OR_FOLLOWER" };
    const records = Array.from({ length: shape.records }, (_, k) => record(item.offset + BigInt(k), shape.at + k, `v${item.offset + BigInt(k)}`));
    const nextOffset = shape.toEnd ? 1n << 40n : item.offset + BigInt(shape.records);
    return { records, highWatermark: nextOffset, logStartOffset: 0n, nextOffset, controlBatches: shape.markers };
  };
}

/** The target's answers: the record at the offset asked, MM2's copy or another producer's, or markers. */
function makeTargetAnswers(random: () => number, flow: Flow): (item: FetchRequestItem) => FetchResult {
  const kinds = new Map<string, { kind: number; copyOf: bigint | null }>();
  for (const p of flow.partitions) {
    kinds.set(`${p.targetTopic}/${p.partition}`, { kind: Math.floor(random() * 4), copyOf: p.mm2Position === null ? null : p.mm2Position - 1n });
  }
  return (item) => {
    const { kind, copyOf } = kinds.get(`${item.topic}/${item.partition}`) ?? { kind: 0, copyOf: null };
    if (kind === 0) return { error: "NOT_LEADER_OR_FOLLOWER" };
    const value = kind === 1 ? "someone else" : `v${copyOf}`;
    const records = kind === 3 ? [] : [record(item.offset, T0, value)];
    return { records, highWatermark: item.offset + 1n, logStartOffset: 0n, nextOffset: item.offset + 1n, controlBatches: kind === 3 ? 1 : 0 };
  };
}

/** The lag column a flow's columns hold for `partitions` (by slot; NaN where no position holds the slot). */
function expectLagColumn(flow: Flow, partitions: Flow["partitions"]) {
  const columns = readFlowColumns(flow);
  const expected = new Float64Array(columns.slots).fill(Number.NaN);
  for (let i = 0; i < partitions.length; i++) expected[columns.slotAt[i]!] = partitions[i]!.lag === null ? Number.NaN : Number(partitions[i]!.lag);
  const known = new Set(columns.slotAt);
  const actual = Array.from(columns.lag).map((v, slot) => (known.has(slot) ? v : Number.NaN));
  expect(actual).toEqual(Array.from(expected));
}

describe("the collector's refinement on buildFlow's rows", () => {
  it("chooses and applies the source tails as the per-object functions did, making no partitions array, over 40 random cycles", async () => {
    const random = createRandom(114);
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const names = Array.from({ length: 12 }, (_, i) => `${["orders", "clicks-", "a."][i % 3]}${(i * 7) % 12}`);
    const syncs = new SyncHistoryStore(50);
    let onRows = 0;
    for (let cycle = 1; cycle <= 40; cycle++) {
      const { source, target, readings } = makeCycle(random, names, cycle, def.id, syncs);
      const now = T0 + cycle * 5_000;
      const flow = buildFlow(def, source, target, readings, now);
      // Two objects-only flows equal to it (buildFlow's own differential test): the reference's input and the
      // input of today's functions on a partitions array.
      const reference = buildReferenceFlow(def, source, target, readings, now);
      const onArray = buildReferenceFlow(def, source, target, readings, now);
      const sourceAnswers = makeSourceAnswers(random, reference);
      const initialMarkers = reference.partitions.filter(() => random() < 0.1).map((p) => flowPartitionKey(def.id, p.topic, p.partition));
      const rows = findFlowRows(flow) !== undefined;
      if (rows) onRows++;
      const made = countPartitionArraysMade();

      const seen: FetchRequestItem[][] = [];
      const { tails } = await fetchSourceTails([flow], new Map([["east", createAnsweringReader("east", sourceAnswers, seen)]]));
      const expectedItems = chooseReferenceTailItems(reference);
      expect(listItems(seen), `cycle ${cycle}`).toEqual(expectedItems.length === 0 ? [] : listItems([expectedItems]));
      const referenceTails = new Map<string, SourceTail>();
      for (const item of expectedItems) {
        const result = sourceAnswers(item);
        if (!("error" in result)) referenceTails.set(flowPartitionKey(def.id, item.topic, item.partition), { from: item.offset, result });
      }
      expect([...tails.keys()]).toEqual([...referenceTails.keys()]);

      const markers = new Set(initialMarkers);
      const [tailed] = applySourceTails([flow], tails, markers);
      const referenceMarkers = new Set(initialMarkers);
      const [expected] = applyReferenceSourceTails([reference], referenceTails, referenceMarkers);
      // A second read of the tails (the next refinement of the same flow keeps what the first found).
      const again = new Map([...tails].filter(() => random() < 0.5));
      const [twice] = applySourceTails([tailed!], again, markers);
      const [expectedTwice] = applyReferenceSourceTails([expected!], again, referenceMarkers);
      const arrayMarkers = new Set(initialMarkers);
      const [arrayTailed] = applySourceTails([onArray], tails, arrayMarkers);

      expect([...markers]).toEqual([...referenceMarkers]);
      expect(tailed!.totals).toEqual(expected!.totals);
      expect(twice!.totals).toEqual(expectedTwice!.totals);
      for (let i = 0; i < expected!.partitions.length; i++) {
        expect(toJson(readFlowPartition(tailed!, i)), `cycle ${cycle} position ${i}`).toBe(toJson(expected!.partitions[i]));
        expect(readOldestUnreplicatedTimestamp(tailed!, i)).toBe(expected!.partitions[i]!.oldestUnreplicatedTimestamp);
        expect(toJson(readFlowPartition(twice!, i))).toBe(toJson(expectedTwice!.partitions[i]));
      }
      expectLagColumn(tailed!, expected!.partitions);
      expectLagColumn(twice!, expectedTwice!.partitions);
      if (rows) expect(countPartitionArraysMade(), `cycle ${cycle}`).toBe(made);

      // Made when read: field by field (and key by key) the reference's.
      expect(toJson(tailed), `cycle ${cycle}`).toBe(toJson(expected));
      expect(toJson(twice)).toBe(toJson(expectedTwice));
      expect(toJson(arrayTailed)).toBe(toJson(expected));
      expectLagColumn(arrayTailed!, expected!.partitions);
    }
    // Most cycles are built on rows; one in five lists a topic twice and has its partitions made.
    expect(onRows).toBeGreaterThanOrEqual(25);
  });

  it("checks target density, offset-sync steps and ledgers on rows as on partition objects, making no partitions array", async () => {
    const random = createRandom(1140);
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const names = Array.from({ length: 12 }, (_, i) => `topic-${i}`);
    const syncs = new SyncHistoryStore(50);
    const state = () => ({ untrusted: new Map<string, string>(), checkedTo: new Map<string, bigint>(), ledgers: new Map<string, PartitionLedger>() });
    const [onRows, onObjects] = [state(), state()];
    let checked = 0;
    for (let cycle = 1; cycle <= 30; cycle++) {
      const { source, target, readings } = makeCycle(random, names, cycle, def.id, syncs, false);
      const now = T0 + cycle * 5_000;
      const flow = buildFlow(def, source, target, readings, now);
      const objects = buildReferenceFlow(def, source, target, readings, now);
      expect(findFlowRows(flow), `cycle ${cycle}`).toBeDefined();
      const sourceAnswers = makeSourceAnswers(random, objects);
      const targetAnswers = makeTargetAnswers(random, objects);
      const markers = new Set(objects.partitions.filter(() => random() < 0.2).map((p) => flowPartitionKey(def.id, p.topic, p.partition)));
      const clusters = new Map([source, target].map((c) => [c.alias, c]));
      const run = async (f: Flow, s: ReturnType<typeof state>) => {
        const seen: FetchRequestItem[][] = [];
        const readers = new Map([
          ["east", createAnsweringReader("east", sourceAnswers, seen)],
          ["west", createAnsweringReader("west", targetAnswers, seen)],
        ]);
        const { tails } = await fetchSourceTails([f], readers);
        const density = await checkTargetDensity([f], readers, tails, s.untrusted);
        const steps = await checkSyncStepWriters([f], readers, syncs, s.checkedTo, s.untrusted);
        const rebuilt = hasPartitionIn(f, new Set([...density.found, ...steps.found]));
        const [tailed] = applySourceTails([f], tails, new Set(markers));
        const ledgers = await advanceTransactionLedgers(s.ledgers, [tailed!], clusters, readers, now);
        return { seen: listItems(seen), density, steps, rebuilt, ledgers, untrusted: [...s.untrusted], checkedTo: [...s.checkedTo] };
      };
      const made = countPartitionArraysMade();
      const fromRows = await run(flow, onRows);
      expect(countPartitionArraysMade(), `cycle ${cycle}`).toBe(made);
      const fromObjects = await run(objects, onObjects);
      expect(toJson(fromRows), `cycle ${cycle}`).toBe(toJson(fromObjects));
      checked += fromObjects.density.found.size + fromObjects.seen.length;
    }
    // The random answers found something to tell apart.
    expect(onObjects.untrusted.size).toBeGreaterThan(0);
    expect(checked).toBeGreaterThan(30);
  });
});
