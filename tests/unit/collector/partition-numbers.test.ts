/**
 * buildFlow computes MM2's position and the lag as numbers when every offset of a partition is within ±2^51
 * (partition-position.ts), with bigints otherwise: both must give what the per-object builder gives with bigints
 * (reference-flow-builder.ts), over offsets on both sides of the limit, nulls, unread targets and stale syncs.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildFlow, derivePosition } from "@/lib/collector/flow-builder";
import { PartitionNumbers } from "@/lib/collector/partition-position";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { flowPartitionKey, type PartitionState } from "@/lib/collector/types";
import { makeCluster, makeDefinition, makeReadings, makeTopic, T0 } from "./fixtures";
import { buildReferenceFlow } from "./reference-flow-builder";
import { createRandom } from "../seeded-random";

const toJson = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
const limit = 2n ** 51n;

/** An offset near 0, just below or just above 2^51, or near 2^52 (every sum of three stays below 2^53). */
function pickBase(random: () => number): bigint {
  const r = random();
  if (r < 0.4) return 0n;
  if (r < 0.6) return limit - 200n;
  if (r < 0.8) return limit + 10n;
  return 2n ** 52n;
}

describe("a partition's position and lag as numbers", () => {
  it("are the bigint answers, offsets on both sides of 2^51, over 30 random cycles", () => {
    const random = createRandom(124);
    const def = makeDefinition({ id: `east-${randomUUID().slice(0, 8)}->west` });
    const syncs = new SyncHistoryStore(20);
    const small = new PartitionNumbers();
    let previous: { flow: ReturnType<typeof buildFlow>; reference: ReturnType<typeof buildFlow> } | null = null;
    const paths = { small: 0, big: 0 };
    for (let cycle = 1; cycle <= 30; cycle++) {
      const positions = new Map<string, bigint>();
      const source = [];
      const target = [];
      for (let topic = 0; topic < 6; topic++) {
        const name = `t${topic}`;
        const parts: Partial<PartitionState>[] = [];
        const remote: Partial<PartitionState>[] = [];
        for (let p = 0; p < 8; p++) {
          const base = pickBase(random);
          const at = (n: number) => base + BigInt(Math.floor(random() * n));
          const logStart = random() < 0.1 ? null : at(50);
          const logEnd = random() < 0.1 ? null : (logStart ?? base) + BigInt(Math.floor(random() * 100));
          parts.push({ partition: p, logStart, logEnd });
          remote.push(random() < 0.1 ? { partition: p, logStart: null, logEnd: null } : { partition: p, logStart: base, logEnd: at(120) });
          if (random() < 0.8) positions.set(`${name}/${p}`, at(120) - 1n);
          if (random() < 0.5) syncs.append(flowPartitionKey(def.id, name, p), [{ upstream: at(100), downstream: at(100) }]);
          const numbers = small.read(logStart, logEnd, base, base, positions.get(`${name}/${p}`), null);
          if (numbers.small) paths.small++;
          else paths.big++;
        }
        source.push(makeTopic(name, parts));
        target.push(makeTopic(`east.${name}`, remote));
      }
      const readings = makeReadings({ positions, syncHistory: syncs });
      const now = T0 + cycle * 5_000;
      const [east, west] = [makeCluster("east", source), makeCluster("west", target)];
      const flow = buildFlow(def, east, west, readings, now, previous === null ? null : { flow: previous.flow, takenAt: now - 5_000 });
      const reference = buildReferenceFlow(def, east, west, readings, now, previous === null ? null : { flow: previous.reference, takenAt: now - 5_000 });
      expect(toJson(flow), `cycle ${cycle}`).toBe(toJson(reference));
      previous = { flow, reference };
    }
    expect(paths.small).toBeGreaterThan(100);
    expect(paths.big).toBeGreaterThan(100);
  });

  it("derive the position derivePosition derives, over random offsets and nulls", () => {
    const random = createRandom(7);
    const numbers = new PartitionNumbers();
    const maybe = (value: bigint) => (random() < 0.15 ? null : value);
    for (let k = 0; k < 5_000; k++) {
      const base = pickBase(random);
      const draw = () => base + BigInt(Math.floor(random() * 40));
      const sync = random() < 0.2 ? null : { upstream: draw(), downstream: draw() };
      const [targetLogEnd, sourceLogEnd] = [maybe(draw()), maybe(draw())];
      numbers.read(null, sourceLogEnd, null, targetLogEnd, undefined, sync);
      const beyond = [sync?.upstream, sync?.downstream, targetLogEnd, sourceLogEnd].some((v) => v != null && v > limit);
      expect(numbers.small).toBe(!beyond);
      if (beyond) continue;
      const expected = derivePosition(sync, targetLogEnd, sourceLogEnd);
      const derived = numbers.derivedPosition();
      expect(Number.isNaN(derived) ? null : BigInt(derived)).toBe(expected);
    }
  });
});
