/**
 * The numeric OffsetSyncStore (lib/translation/sync-slots.ts) against lib/mm2's bigint model of OffsetSyncStore.java:
 * hand-built syncs for each slot rule, and seeded random histories compared slot by slot (offsets and which slots
 * hold the same sync) after every sync.
 */
import { describe, expect, it } from "vitest";
import { createOffsetSyncStore, type OffsetSyncStore, type SyncPoint, SYNCS_PER_PARTITION } from "@/lib/mm2";
import { SyncSlots } from "@/lib/translation/sync-slots";
import { JavaRandom } from "../mm2/helpers/java-random";

const tp = { topic: "orders", partition: 0 };

/** The 64 slots of partition `p` as "upstream:downstream#run" (the run says which slots hold the same sync). */
function readSlots(slots: SyncSlots, p: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < slots.countRuns(p); k++) {
    const at = slots.runAt(p, k);
    while (out.length <= slots.lastSlotAt(at)) out.push(`${slots.upstreamAt(at)}:${slots.downstreamAt(at)}#${k}`);
  }
  return out;
}

/** The bigint model's 64 slots in the same form (runs numbered by identity change). */
function readModelSlots(store: OffsetSyncStore): string[] {
  const slots = store.getSlots(tp) ?? [];
  let run = 0;
  return slots.map((s, i) => {
    if (i > 0 && s !== slots[i - 1]) run++;
    return `${s.upstream}:${s.downstream}#${run}`;
  });
}

/** Both stores fed the same syncs, compared after each. */
function feedBoth(history: readonly SyncPoint[], p = 0): { slots: SyncSlots; model: OffsetSyncStore } {
  const slots = new SyncSlots();
  const model = createOffsetSyncStore();
  model.markReadToEnd();
  for (const sync of history) {
    slots.add(p, Number(sync.upstream), Number(sync.downstream), false);
    model.addSync({ ...tp, ...sync });
    expect(readSlots(slots, p)).toEqual(readModelSlots(model));
  }
  return { slots, model };
}

/** A seeded int in [0, bound). */
function nextInt(random: JavaRandom, bound: number): number {
  return Number(random.nextLongBetween(0n, BigInt(bound)));
}

function pairs(...list: [number, number][]): SyncPoint[] {
  return list.map(([u, d]) => ({ upstream: BigInt(u), downstream: BigInt(d) }));
}

describe("SyncSlots: MM2's OffsetSyncStore as numbers", () => {
  it("fills all 64 slots with the first sync, and repairs slot 0 (invariant A) with each newer one", () => {
    const { slots } = feedBoth(pairs([100, 1000]));
    expect(slots.countRuns(0)).toBe(1);
    expect(slots.lastSlotAt(slots.runAt(0, 0))).toBe(SYNCS_PER_PARTITION - 1);
    feedBoth(pairs([100, 1000], [101, 1001]));
    const { slots: two } = feedBoth(pairs([100, 1000], [101, 1001]));
    // Slot 0 the newest (A), slot 63 the earliest still usable (D).
    expect(two.upstreamAt(two.runAt(0, 0))).toBe(101);
    expect(two.upstreamAt(two.runAt(0, two.countRuns(0) - 1))).toBe(100);
  });

  it("keeps syncs spaced by powers of two (invariants B and C) over a long steady history, as Java does", () => {
    const steady = Array.from({ length: 3000 }, (_, i) => ({ upstream: BigInt(i * 10), downstream: BigInt(i * 10 + 7) }));
    const { slots } = feedBoth(steady);
    const ups = Array.from({ length: slots.countRuns(0) }, (_, k) => slots.upstreamAt(slots.runAt(0, k)));
    expect(ups[0]).toBe(29990);
    expect(ups.at(-1)).toBe(0);
    for (let k = 1; k < ups.length; k++) expect(ups[k]!).toBeLessThan(ups[k - 1]!);
  });

  it("clears every slot on an upstream rewind (KAFKA-15905) and at a wiping start-up", () => {
    const { slots } = feedBoth(pairs([100, 100], [200, 200], [300, 300], [50, 400]));
    expect(readSlots(slots, 0)).toEqual(Array.from({ length: 64 }, () => "50:400#0"));
    slots.add(0, 500, 500, true);
    expect(readSlots(slots, 0)).toEqual(Array.from({ length: 64 }, () => "500:500#0"));
  });

  it("keeps two syncs with the same offsets apart (Java compares records by reference)", () => {
    const { slots } = feedBoth(pairs([100, 100], [100, 100], [100, 100]));
    expect(slots.countRuns(0)).toBeGreaterThan(1);
  });

  it("finds the slot MM2 translates by: below the oldest (too old), at and above each slot", () => {
    const { slots, model } = feedBoth(Array.from({ length: 200 }, (_, i) => ({ upstream: BigInt(1000 + i * 100), downstream: BigInt(i * 100) })));
    const runs = slots.countRuns(0);
    const oldest = slots.runAt(0, runs - 1);
    expect(slots.upstreamAt(slots.findRun(0, 999))).toBe(1000);
    expect(model.translateDownstream(null, tp, 999n).kind).toBe("too-old");
    for (let k = 0; k < runs; k++) {
      const at = slots.runAt(0, k);
      const up = slots.upstreamAt(at);
      for (const offset of [up - 1, up, up + 1]) {
        const found = slots.findRun(0, offset);
        const expected = model.lookupLatestSync(tp, BigInt(offset))!;
        expect([slots.upstreamAt(found), slots.downstreamAt(found)]).toEqual([Number(expected.upstream), Number(expected.downstream)]);
        if (offset < 1000) expect(found).toBe(oldest);
      }
    }
  });

  it("holds many partitions apart in one arena, moving and packing blocks as they grow, and clears one", () => {
    const slots = new SyncSlots();
    const models = Array.from({ length: 40 }, () => {
      const m = createOffsetSyncStore();
      m.markReadToEnd();
      return m;
    });
    const random = new JavaRandom(7n);
    for (let step = 0; step < 4000; step++) {
      const p = nextInt(random, 40);
      const last = models[p]!.getSlots(tp)?.[0];
      const up = (last?.upstream ?? 0n) + BigInt(1 + nextInt(random, 300));
      const down = (last?.downstream ?? 0n) + BigInt(1 + nextInt(random, 300));
      slots.add(p, Number(up), Number(down), false);
      models[p]!.addSync({ ...tp, upstream: up, downstream: down });
    }
    for (let p = 0; p < 40; p++) expect(readSlots(slots, p)).toEqual(readModelSlots(models[p]!));
    slots.clear(3);
    expect(slots.countRuns(3)).toBe(0);
    expect(readSlots(slots, 4)).toEqual(readModelSlots(models[4]!));
  });

  it("matches the bigint model slot by slot over seeded random histories (jumps, rewinds, truncations, repeats)", () => {
    const random = new JavaRandom(20261206n);
    for (let run = 0; run < 25; run++) {
      const history: SyncPoint[] = [];
      let up = BigInt(nextInt(random, 1000));
      let down = BigInt(nextInt(random, 1000));
      for (let i = 0; i < 400; i++) {
        history.push({ upstream: up, downstream: down });
        const roll = random.nextDouble();
        if (roll < 0.01) up = up / 2n;
        else if (roll < 0.03) down = down / 2n + 1n;
        else if (roll < 0.05) continue;
        const step = roll < 0.1 ? BigInt(1 + nextInt(random, 1 << 20)) : BigInt(1 + nextInt(random, 200));
        up += step;
        down += step;
      }
      feedBoth(history);
    }
  });

  it("computes Java's invariants exactly for offsets near 2^53 and below 0, and names an offset beyond 2^53", () => {
    const near = 2 ** 53 - 5000;
    feedBoth(Array.from({ length: 300 }, (_, i) => ({ upstream: BigInt(near + i * 13), downstream: BigInt(i * 13) })));
    feedBoth(Array.from({ length: 300 }, (_, i) => ({ upstream: BigInt(-2000 + i * 13), downstream: BigInt(i * 13) })));
    const slots = new SyncSlots();
    slots.add(0, 100, 100, false);
    expect(slots.findUnsafeRun(0)).toBeNull();
    slots.add(0, 2 ** 53, 200, false);
    expect(slots.findUnsafeRun(0)).toEqual({ at: slots.runAt(0, 0), what: "upstream" });
    // A rewind clears the slots: nothing beyond 2^53 is held any more.
    slots.add(0, 5, 5, false);
    expect(slots.findUnsafeRun(0)).toBeNull();
  });
});
