import { describe, expect, it } from "vitest";
import type { Flow } from "@/lib/collector/types";
import { type FlowProgress, ProgressWindow } from "@/lib/pipeline/progress-window";
import { makeFlow, makeFlowPartition, makeSnapshot, T0 } from "../detect/fixtures";

/** A flow whose partitions `topic/partition` are at position 100 × slot + cycle, log end 1,000 more. */
function flowOf(id: string, cycle: number, names: string[]): Flow {
  const partitions = names.map((name, i) => {
    const [topic, partition] = name.split("/") as [string, string];
    return makeFlowPartition({ topic, partition: Number(partition), mm2Position: BigInt(100 * i + cycle), sourceLogEnd: BigInt(100 * i + cycle + 1_000) });
  });
  return makeFlow({ id, partitions });
}

/** What sampling `flow` from scratch gives: every slot indexed by its `topic/partition`, known unless unknown. */
function sampleFromScratch(flow: Flow): FlowProgress {
  const known = flow.partitions.map((p) => p.unknown === null && p.mm2Position !== null && p.sourceLogEnd !== null);
  return {
    index: new Map(flow.partitions.map((p, i) => [`${p.topic}/${p.partition}`, i])),
    positions: BigInt64Array.from(flow.partitions, (p, i) => (known[i] ? p.mm2Position! : 0n)),
    logEnds: BigInt64Array.from(flow.partitions, (p, i) => (known[i] ? p.sourceLogEnd! : 0n)),
    known: Uint8Array.from(known, (k) => (k ? 1 : 0)),
  };
}

describe("ProgressWindow", () => {
  it("samples every cycle as from scratch while partitions come, go, move and become unknown, keeping the index while they stay", () => {
    const window = new ProgressWindow(300_000);
    const a = ["orders/0", "orders/1", "payments/0"];
    const cycles: Flow[][] = [
      [flowOf("east->west", 1, a), flowOf("south->west", 1, ["clicks/0"])],
      [flowOf("east->west", 2, a), flowOf("south->west", 2, ["clicks/0"])],
      // A partition added, one flow gone.
      [flowOf("east->west", 3, [...a, "payments/1"])],
      // The same partitions in other slots; the gone flow back.
      [flowOf("east->west", 4, ["orders/1", "orders/0", "payments/0", "payments/1"]), flowOf("south->west", 4, ["clicks/0"])],
      // Same length, one partition renamed (orders/1 → orders/10 keeps no slot of its own).
      [flowOf("east->west", 5, ["orders/10", "orders/0", "payments/0", "payments/1"]), flowOf("south->west", 5, ["clicks/0"])],
    ];
    // Cycle 6: as cycle 5, with payments/0 unknown.
    const unknownAt = flowOf("east->west", 6, ["orders/10", "orders/0", "payments/0", "payments/1"]);
    unknownAt.partitions[2] = { ...unknownAt.partitions[2]!, unknown: { reason: "east ListOffsets: NOT_LEADER_OR_FOLLOWER", dataAt: T0 } };
    cycles.push([unknownAt, flowOf("south->west", 6, ["clicks/0"])]);
    const samples = cycles.map((flows, c) => window.record(makeSnapshot({ takenAt: T0 + c * 30_000, flows })).current);
    cycles.forEach((flows, c) => {
      expect(samples[c]!.at).toBe(T0 + c * 30_000);
      expect([...samples[c]!.flows.keys()]).toEqual(flows.map((f) => f.id));
      for (const f of flows) expect(samples[c]!.flows.get(f.id)).toStrictEqual(sampleFromScratch(f));
    });
    const index = (c: number, id = "east->west") => samples[c]!.flows.get(id)!.index;
    expect(index(1)).toBe(index(0));
    expect(index(2)).not.toBe(index(1));
    expect(index(5)).toBe(index(4));
    expect(index(4)).not.toBe(index(3));
    expect([...index(4)]).toEqual([
      ["orders/10", 0],
      ["orders/0", 1],
      ["payments/0", 2],
      ["payments/1", 3],
    ]);
    expect([...samples[5]!.flows.get("east->west")!.known]).toEqual([1, 1, 0, 1]);
    expect([...samples[5]!.flows.get("east->west")!.positions]).toEqual([6n, 106n, 0n, 306n]);
  });
});
