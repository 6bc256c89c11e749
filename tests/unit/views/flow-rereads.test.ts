import { describe, expect, it } from "vitest";
import type { TranslationSeriesPoint } from "@/lib/store";
import type { FlowTranslation, GroupTranslation } from "@/lib/translation";
import { maxFlowRereadGroups, readCycleFlowRereads, readFlowRereads, sumFlowRereads } from "@/lib/views/flow-rereads";

const T0 = Date.UTC(2026, 11, 1, 14, 0, 0);

/** A stored sample as the pipeline writes it: committed 1,000 on orders/p, MM2 translating `reread` short of the ideal. */
function sample(group: string, partition: number, at: number, reread: bigint | null, failoverReread: bigint | null): TranslationSeriesPoint {
  return {
    group,
    topic: "orders",
    partition,
    at,
    committed: 1_000n,
    translated: reread === null ? null : 1_000n - reread,
    checkpointDownstream: failoverReread === null ? null : 1_000n - failoverReread,
    idealLow: 1_000n,
    idealHigh: 1_000n,
    reread,
    failoverReread,
    groupLag: 40n,
  };
}

describe("sumFlowRereads", () => {
  it("sums every group and partition of one cycle, counting skips (negative) as no re-read", () => {
    const samples = [
      sample("fast", 0, T0, 10n, 120n),
      sample("fast", 1, T0, -5n, -5n),
      sample("slow", 0, T0, 30n, 400n),
      sample("slow", 0, T0 + 10_000, 0n, 0n),
      sample("fast", 0, T0 + 10_000, null, null),
    ];
    expect(sumFlowRereads(samples, T0, 10_000)).toEqual([
      { at: T0, failoverReread: 520, reread: 40 },
      { at: T0 + 10_000, failoverReread: 0, reread: 0 },
    ]);
  });

  it("keeps the cycle with the highest replay of each bucket, so a spike between two calm cycles stays visible", () => {
    const samples = [sample("g", 0, T0, 1n, 5n), sample("g", 0, T0 + 20_000, 2n, 900n), sample("g", 0, T0 + 40_000, 3n, 7n), sample("g", 0, T0 + 60_000, 4n, 8n)];
    expect(sumFlowRereads(samples, T0, 60_000)).toEqual([
      { at: T0 + 20_000, failoverReread: 900, reread: 2 },
      { at: T0 + 60_000, failoverReread: 8, reread: 4 },
    ]);
  });
});

describe("readFlowRereads", () => {
  const group = (name: string, replay: bigint) => ({ group: name, totals: { failoverReplayRecords: replay } }) as GroupTranslation;

  it("reads the groups with the largest replay now (at most maxFlowRereadGroups) and buckets the range into 120 points", async () => {
    const groups = Array.from({ length: maxFlowRereadGroups + 2 }, (_, i) => group(`g${String(i).padStart(2, "0")}`, BigInt(i)));
    const ft = { flow: "east->west", groups } as unknown as FlowTranslation;
    const asked: string[] = [];
    const store = {
      readTranslationSeries: async (flow: string, name: string, from: number, to: number) => {
        asked.push(`${flow}:${name}:${from}-${to}`);
        return [sample(name, 0, T0 + 30_000, 1n, 2n)];
      },
    };
    const got = await readFlowRereads(store, ft, { from: T0, to: T0 + 3_600_000 });
    expect(asked.length).toBe(50);
    expect(asked[0]).toBe(`east->west:g51:${T0}-${T0 + 3_600_000}`);
    expect(asked.includes(`east->west:g01:${T0}-${T0 + 3_600_000}`)).toBe(false);
    expect(got).toEqual({ points: [{ at: T0 + 30_000, failoverReread: 100, reread: 50 }], groups: 52, groupsSummed: 50, bucketMs: 30_000 });
  });

  it("reads the same groups in the same order as sorting every group would, ties on replay by name", async () => {
    // 400 groups in a scrambled order, replays 0–9 (many ties), names unique.
    const groups = Array.from({ length: 400 }, (_, i) => group(`g${String((i * 7919) % 400).padStart(3, "0")}`, BigInt((i * 31) % 10)));
    const sorted = [...groups].sort((a, b) => Number(b.totals.failoverReplayRecords - a.totals.failoverReplayRecords) || a.group.localeCompare(b.group));
    const asked: string[] = [];
    const store = { readTranslationSeries: async (_flow: string, name: string) => (asked.push(name), []) };
    await readFlowRereads(store, { flow: "east->west", groups } as unknown as FlowTranslation, { from: T0, to: T0 + 60_000 });
    expect(asked).toEqual(sorted.slice(0, maxFlowRereadGroups).map((g) => g.group));
    // g001 is group 79 (79 × 7,919 mod 400), whose replay is 9 (79 × 31 mod 10): the largest, and the first name.
    expect(asked.slice(0, 3)).toEqual(["g001", "g011", "g021"]);
  });
});

describe("readCycleFlowRereads", () => {
  const ft = { flow: "east->west", groups: [{ group: "g", totals: { failoverReplayRecords: 5n } }] } as unknown as FlowTranslation;

  it("reads once per cycle's translation and range: concurrent and later requests share the first request's read", async () => {
    const asked: string[] = [];
    const store = {
      readTranslationSeries: async (_flow: string, name: string, from: number, to: number) => {
        asked.push(`${name}:${from}-${to}`);
        return [sample(name, 0, T0 + 30_000, 1n, 2n)];
      },
    };
    const hour = { key: "1h", from: T0, to: T0 + 3_600_000 };
    const [a, b] = await Promise.all([readCycleFlowRereads(store, ft, hour), readCycleFlowRereads(store, ft, { ...hour, from: T0 + 5000, to: T0 + 3_605_000 })]);
    expect(b).toBe(a);
    expect(asked).toEqual([`g:${T0}-${T0 + 3_600_000}`]);
    await readCycleFlowRereads(store, ft, { key: "15m", from: T0 + 2_700_000, to: T0 + 3_600_000 });
    expect(asked).toHaveLength(2);
    // The next cycle's translation is a new object: it reads again.
    await readCycleFlowRereads(store, { ...ft } as FlowTranslation, hour);
    expect(asked).toHaveLength(3);
  });

  it("forgets a failed read, so the next request tries again", async () => {
    let calls = 0;
    const store = {
      readTranslationSeries: async () => {
        calls += 1;
        if (calls === 1) throw new Error("connection reset");
        return [];
      },
    };
    const own = { ...ft } as FlowTranslation;
    const range = { key: "1h", from: T0, to: T0 + 3_600_000 };
    await expect(readCycleFlowRereads(store, own, range)).rejects.toThrow("connection reset");
    await expect(readCycleFlowRereads(store, own, range)).resolves.toEqual({ points: [], groups: 1, groupsSummed: 1, bucketMs: 30_000 });
    expect(calls).toBe(2);
  });
});
