import { describe, expect, it } from "vitest";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import type { OffsetSyncPoint } from "@/lib/collector/types";
import { readSectionChanges } from "@/lib/detect/section-changes";
import { stepSyncs } from "@/lib/detect/sync-steps";
import { T0 } from "./fixtures";

const sync = (upstream: bigint, downstream: bigint): OffsetSyncPoint => ({ upstream, downstream });
const history = (entries: [string, OffsetSyncPoint[]][]) => ({ offsetSyncs: new Map(entries) });
const all = () => true;
const none = () => false;

describe("offset-sync markers (stepSyncs)", () => {
  it("gives a judged partition its new steps from the marker on, and moves the marker to the newest sync", () => {
    const markers = { "f|a|0": { upstream: "100", downstream: "90" }, "f|a|1": { upstream: "7", downstream: "7" } };
    const syncs = [sync(50n, 45n), sync(100n, 90n), sync(200n, 190n), sync(300n, 290n)];
    const out = stepSyncs(markers, history([["f|a|0", syncs], ["f|a|1", [sync(7n, 7n)]]]), all, all, T0);
    expect(out.newSyncs.get("f|a|0")).toEqual(syncs.slice(1));
    expect(out.newSyncs.has("f|a|1")).toBe(false);
    expect({ ...out.markers }).toEqual({ "f|a|0": { upstream: "300", downstream: "290" }, "f|a|1": { upstream: "7", downstream: "7" } });
    // Only the marker that moved is listed for the persister.
    expect(readSectionChanges(out.markers)?.touched).toEqual(["f|a|0"]);
    // The memory passed in is unchanged.
    expect(markers["f|a|0"]).toEqual({ upstream: "100", downstream: "90" });
  });

  it("keeps the marker of a partition not judged, starts one for a fresh partition seen first, and drops the rest", () => {
    const markers = { "f|a|0": { upstream: "10", downstream: "10" } };
    const h = history([["f|a|0", [sync(10n, 10n), sync(20n, 20n)]], ["f|b|0", [sync(5n, 4n)]], ["f|c|0", [sync(1n, 1n)]]]);
    const out = stepSyncs(markers, h, none, (key) => key === "f|b|0", T0);
    expect(out.newSyncs.size).toBe(0);
    expect({ ...out.markers }).toEqual({ "f|a|0": { upstream: "10", downstream: "10" }, "f|b|0": { upstream: "5", downstream: "4" } });
  });

  it("rejects a sync offset beyond 2^53, naming the partition", () => {
    const huge = 2n ** 53n + 1n;
    expect(() => stepSyncs({}, history([["f|a|0", [sync(huge, 3n)]]]), none, all, T0)).toThrow(
      `offset sync of f|a|0: upstream offset ${huge} is beyond 2^53, where offsets stop being exact as numbers`,
    );
  });

  it("reads the collector's store as it reads points, cycle after cycle, keys added between cycles included", () => {
    const store = new SyncHistoryStore(4);
    const points = new Map<string, OffsetSyncPoint[]>();
    const append = (key: string, ...syncs: OffsetSyncPoint[]) => {
      store.append(key, syncs);
      // The store keeps the newest 4, as its bound says.
      points.set(key, [...(points.get(key) ?? []), ...syncs].slice(-4));
    };
    append("f|a|0", sync(10n, 10n));
    append("f|a|1", sync(5n, 5n));
    let fromStore = stepSyncs({}, { offsetSyncs: store }, all, all, T0);
    let fromPoints = stepSyncs({}, { offsetSyncs: new Map(points) }, all, all, T0);
    expect({ ...fromStore.markers }).toEqual({ ...fromPoints.markers });
    append("f|a|0", sync(20n, 20n), sync(40n, 30n));
    append("f|b|0", sync(1n, 1n));
    fromStore = stepSyncs(fromStore.markers, { offsetSyncs: store }, all, all, T0 + 10_000);
    fromPoints = stepSyncs(fromPoints.markers, { offsetSyncs: new Map(points) }, all, all, T0 + 10_000);
    expect(fromStore.newSyncs).toEqual(fromPoints.newSyncs);
    expect(fromStore.newSyncs.get("f|a|0")).toEqual([sync(10n, 10n), sync(20n, 20n), sync(40n, 30n)]);
    expect({ ...fromStore.markers }).toEqual({ ...fromPoints.markers });
    expect({ ...fromStore.markers }).toEqual({
      "f|a|0": { upstream: "40", downstream: "30" },
      "f|a|1": { upstream: "5", downstream: "5" },
      "f|b|0": { upstream: "1", downstream: "1" },
    });
  });
});
