import { describe, expect, it } from "vitest";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import type { OffsetSyncPoint } from "@/lib/collector/types";
import { readSectionChanges } from "@/lib/detect/section-changes";
import { stepSyncs } from "@/lib/detect/sync-steps";
import type { DetectorMemory } from "@/lib/detect/types";
import { T0 } from "./fixtures";
import { createRandom } from "../seeded-random";

type Markers = DetectorMemory["syncMarkers"];

describe("offset-sync markers from the collector's store against the same syncs as points", () => {
  it("answers alike over random cycles: histories that did not grow (not read), grew, grew by the same sync, or overflowed", () => {
    const random = createRandom(5);
    const bound = 4;
    const store = new SyncHistoryStore(bound);
    const points = new Map<string, OffsetSyncPoint[]>();
    const newest = new Map<string, OffsetSyncPoint>();
    let fromStore: Markers = {};
    let fromPoints: Markers = {};
    let keyCount = 0;
    for (let cycle = 1; cycle <= 60; cycle++) {
      const now = T0 + cycle * 10_000;
      for (let n = cycle === 1 ? 40 : random() < 0.2 ? 2 : 0; n > 0; n--) {
        const key = `f|t|${keyCount++}`;
        const first = { upstream: 10n, downstream: 10n };
        store.append(key, [first]);
        points.set(key, [first]);
        newest.set(key, first);
      }
      for (const key of points.keys()) {
        const roll = random();
        if (roll < 0.6) continue;
        const last = newest.get(key)!;
        // The same sync again (a count that grows, a newest that does not), a few new ones, or past the bound.
        const count = roll < 0.65 ? 1 : roll < 0.95 ? 1 + Math.floor(random() * 2) : bound + 2;
        const syncs: OffsetSyncPoint[] = [];
        let at = last;
        for (let s = 0; s < count; s++) {
          at = roll < 0.65 ? last : { upstream: at.upstream + BigInt(1 + Math.floor(random() * 20)), downstream: at.downstream + 1n };
          syncs.push(at);
        }
        store.append(key, syncs);
        points.set(key, [...points.get(key)!, ...syncs].slice(-bound));
        newest.set(key, at);
      }
      const judged = new Set([...points.keys()].filter(() => random() < 0.7));
      const fresh = new Set([...points.keys()].filter((key) => judged.has(key) || random() < 0.5));
      const a = stepSyncs(fromStore, { offsetSyncs: store }, (k) => judged.has(k), (k) => fresh.has(k), now);
      const b = stepSyncs(fromPoints, { offsetSyncs: new Map(points) }, (k) => judged.has(k), (k) => fresh.has(k), now);
      expect(a.newSyncs).toEqual(b.newSyncs);
      expect({ ...a.markers }).toEqual({ ...b.markers });
      expect([...readSectionChanges(a.markers)!.touched].sort()).toEqual([...readSectionChanges(b.markers)!.touched].sort());
      fromStore = a.markers;
      fromPoints = b.markers;
    }
  });
});
