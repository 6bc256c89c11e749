import { describe, expect, it } from "vitest";
import type { Flow, FlowPartition } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import { describeDistinctStrings, encodeAsColumns } from "@/lib/pipeline/columnar-source";
import { ProgressWindow } from "@/lib/pipeline/progress-window";
import { serveProgress } from "@/lib/pipeline/served-progress";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";
import { createRandom } from "../seeded-random";

const flowIds = ["east->west", "south->west", "north->west"];

/**
 * A flow's partitions this cycle: `names` in order, at random positions; some unknown, some without a position, one
 * in a few flows beyond 2^53 (sampled from the partition objects, with an index of its own).
 */
function makePartitions(random: () => number, names: readonly string[], cycle: number): FlowPartition[] {
  const beyondExact = random() < 0.1;
  return names.map((name, i) => {
    const [topic, partition] = name.split("/") as [string, string];
    const r = random();
    const position = beyondExact && i === 0 ? 2n ** 60n : BigInt(100 * i + cycle);
    return makeFlowPartition({
      topic,
      partition: Number(partition),
      mm2Position: r < 0.05 ? null : position,
      sourceLogEnd: position + BigInt(Math.floor(random() * 1_000)),
      unknown: r > 0.95 ? { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: T0 } : null,
    });
  });
}

/** Partition names: none, one, a few, past 256 (indices as u16); now and then one listed twice. */
function pickNames(random: () => number): string[] {
  const count = [0, 1, 2, 7, 300][Math.floor(random() * 5)]!;
  const names = Array.from({ length: count }, (_, i) => `topic-${i % 5}/${Math.floor(i / 5)}`);
  if (count > 1 && random() < 0.15) names.push(names[0]!);
  return names;
}

describe("the published catch-up samples, each flow's index handed over as columns kept with it", () => {
  it("encode byte for byte as the samples the window made, over 30 random runs of cycles", { timeout: 60_000 }, () => {
    for (let seed = 1; seed <= 30; seed++) {
      const random = createRandom(seed);
      const window = new ProgressWindow(300_000);
      const listed = new Map<string, string[]>();
      let takenAt = T0;
      for (let cycle = 1; cycle <= 12; cycle++) {
        const flows: Flow[] = [];
        for (const id of flowIds) {
          // Flows come and go; most keep their partitions (and so their index) from one cycle to the next.
          if (random() < 0.2) continue;
          if (!listed.has(id) || random() < 0.25) listed.set(id, pickNames(random));
          flows.push(makeFlow({ id, partitions: makePartitions(random, listed.get(id)!, cycle) }));
        }
        takenAt += Math.floor(random() * 60_000);
        const reading = window.record(makeSnapshot({ takenAt, flows }));
        const expected = encodeColumnar({ progress: reading });
        // Twice: the second from the columns the first made.
        for (let round = 0; round < 2; round++) {
          const body = encodeColumnar({ progress: serveProgress(reading) });
          expect(body.equals(expected), `seed ${seed}, cycle ${cycle}, round ${round}`).toBe(true);
        }
        if (cycle === 1) expect(reading.reference, `seed ${seed}`).toBeNull();
      }
    }
  });

  it("decode to the window's samples", () => {
    const window = new ProgressWindow(300_000);
    const names = ["orders/0", "orders/1", "payments/0"];
    const random = createRandom(3);
    window.record(makeSnapshot({ takenAt: T0, flows: [makeFlow({ partitions: makePartitions(random, names, 1) })] }));
    const flows = [makeFlow({ partitions: makePartitions(random, names, 2) })];
    const reading = window.record(makeSnapshot({ takenAt: T0 + 60_000, flows }));
    expect(reading.reference).not.toBeNull();
    expect(decodeColumnar(encodeColumnar(serveProgress(reading)))).toEqual(reading);
  });
});

describe("distinct strings handed over with their JSON text", () => {
  it("encode as the Map whose keys they are, from none to past 65,536 (indices as u32)", () => {
    for (const count of [0, 1, 2, 255, 256, 257, 65_536, 65_537]) {
      const keys = Array.from({ length: count }, (_, i) => `flow|topic-${i % 13}|${i}`);
      const values = keys.map((_, i) => i * 3);
      const source = {
        [encodeAsColumns]: () => ({
          kind: "map" as const,
          keys: describeDistinctStrings(keys),
          values: { kind: "values" as const, values },
        }),
      };
      const map = new Map(keys.map((k, i) => [k, values[i]!]));
      expect(encodeColumnar({ a: source }).equals(encodeColumnar({ a: map })), `${count} keys`).toBe(true);
    }
  });
});
