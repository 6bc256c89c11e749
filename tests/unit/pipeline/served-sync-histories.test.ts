import { describe, expect, it } from "vitest";
import { listSyncHistories } from "@/lib/collector/sync-history";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { type OffsetSyncPoint } from "@/lib/collector/types";
import { decodeColumnar, encodeColumnar } from "@/lib/pipeline/columnar-codec";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { servedOffsetSyncs, trimReadModel } from "@/lib/pipeline/served-read-model";
import { ServedSyncHistories } from "@/lib/pipeline/served-sync-histories";
import { makeSnapshot } from "../detect/fixtures";
import { createRandom } from "../seeded-random";

const maxExact = Number.MAX_SAFE_INTEGER;

/**
 * A store of random histories: some keys without syncs, some at or just past the served 64, some wrapped round their
 * bound; offsets small, above 2^32, negative, at ±2^53, and columns where every value is the same.
 */
function makeStore(seed: number): SyncHistoryStore {
  const random = createRandom(seed);
  const store = new SyncHistoryStore(40 + Math.floor(random() * 100));
  const keys = Math.floor(random() * 60);
  const constant = random() < 0.2;
  for (let k = 0; k < keys; k++) {
    const key = `flow-${seed}|topic-${k % 7}|${k}`;
    const appends = Math.floor(random() * 4);
    store.append(key, []);
    for (let a = 0; a < appends; a++) {
      const count = [0, 1, 63, 64, 65, Math.floor(random() * 200)][Math.floor(random() * 6)]!;
      store.append(key, Array.from({ length: count }, () => makePoint(random, constant)));
    }
  }
  return store;
}

function makePoint(random: () => number, constant: boolean): OffsetSyncPoint {
  if (constant) return { upstream: 7n, downstream: 4_294_967_297n };
  const pick = () => {
    const r = random();
    if (r < 0.05) return random() < 0.5 ? maxExact : -maxExact;
    if (r < 0.15) return -Math.floor(random() * 2 ** 40);
    if (r < 0.5) return 2 ** 32 + Math.floor(random() * 2 ** 45);
    return Math.floor(random() * 100_000);
  };
  return { upstream: BigInt(pick()), downstream: BigInt(pick()) };
}

/** What trimming made of the store before: each key's newest 64 syncs as the store's point objects. */
function listNewestPoints(store: SyncHistoryStore): Map<string, readonly OffsetSyncPoint[]> {
  const out = new Map<string, readonly OffsetSyncPoint[]>();
  for (const [key, history] of store.entries()) out.set(key, history.list(Math.max(0, history.length - servedOffsetSyncs)));
  return out;
}

function makeModel(offsetSyncs: ReadModel["history"]["offsetSyncs"]): ReadModel {
  return {
    snapshot: makeSnapshot(),
    history: { offsetSyncs },
    translations: new Map(),
    translationErrors: new Map(),
    alerts: [],
    risks: [],
    progress: { current: { flows: new Map() }, reference: null } as unknown as ReadModel["progress"],
    audit: new Map(),
    builtAt: 0,
    offsetSyncsHeld: new Map([["held-before|t|0", 20_000]]),
  };
}

describe("the published offset syncs, copied from the collector's store as numbers", () => {
  it("encode byte for byte as the Map of point arrays they stand for, over 60 random stores", { timeout: 30_000 }, () => {
    for (let seed = 1; seed <= 60; seed++) {
      const store = makeStore(seed);
      const points = listNewestPoints(store);
      const served = new ServedSyncHistories(store, servedOffsetSyncs, () => undefined);
      const text = encodeColumnar({ offsetSyncs: served });
      expect(text.equals(encodeColumnar({ offsetSyncs: points })), `seed ${seed}`).toBe(true);
      expect((decodeColumnar(text) as { offsetSyncs: unknown }).offsetSyncs, `seed ${seed}`).toEqual(points);
    }
  });

  it("trim the model as before: the same published text, the same held counts", { timeout: 30_000 }, () => {
    for (let seed = 1; seed <= 40; seed++) {
      const store = makeStore(seed);
      const trimmed = trimReadModel(makeModel(store));
      expect(trimmed.history.offsetSyncs, `seed ${seed}`).toBeInstanceOf(ServedSyncHistories);
      // The previous trim, run on the same syncs held as points.
      const before = trimReadModel(makeModel(new Map(listSyncHistories(store))));
      expect(before.history.offsetSyncs).toBeInstanceOf(Map);
      expect(trimmed.offsetSyncsHeld, `seed ${seed}`).toEqual(before.offsetSyncsHeld);
      expect(encodeColumnar(trimmed).equals(encodeColumnar(before)), `seed ${seed}`).toBe(true);
    }
  });

  it("encode as the store's points publication after publication while keys are added, each copy keeping its own", () => {
    const random = createRandom(11);
    const store = makeStore(11);
    const copies: [ServedSyncHistories, Map<string, readonly OffsetSyncPoint[]>][] = [];
    for (let publication = 0; publication < 6; publication++) {
      // Some publications add keys (the store's keys kept from the last publication no longer cover it), some not.
      if (publication % 2 === 1) store.append(`added-${publication}|t|0`, [makePoint(random, false)]);
      for (const key of store.keys()) if (random() < 0.3) store.append(key, [makePoint(random, false)]);
      const points = listNewestPoints(store);
      const served = new ServedSyncHistories(store, servedOffsetSyncs, () => undefined);
      expect(encodeColumnar({ s: served }).equals(encodeColumnar({ s: points })), `publication ${publication}`).toBe(true);
      copies.push([served, points]);
    }
    for (const [served, points] of copies) {
      expect([...served.keys()]).toEqual([...points.keys()]);
      for (const key of store.keys()) {
        expect(served.has(key)).toBe(points.has(key));
        expect(served.list(key)).toEqual(points.get(key) ?? []);
      }
    }
  });

  it("read as SyncHistories: each key's newest syncs, unchanged by later appends to the store", () => {
    const store = makeStore(7);
    const points = listNewestPoints(store);
    const served = new ServedSyncHistories(store, servedOffsetSyncs, () => undefined);
    for (const key of store.keys()) store.append(key, [{ upstream: 1n, downstream: 2n }]);
    expect([...served.keys()]).toEqual([...points.keys()]);
    for (const [key, history] of served.entries()) {
      const expected = points.get(key)!;
      expect(history.length).toBe(expected.length);
      expect(served.list(key)).toEqual(expected);
      expect(history.list(1)).toEqual(expected.slice(1));
      if (expected.length > 0) expect(history.upstream(expected.length - 1)).toBe(Number(expected.at(-1)!.upstream));
    }
    expect(served.get("no|such|0")).toBeUndefined();
    expect(served.list("no|such|0")).toEqual([]);
  });
});
