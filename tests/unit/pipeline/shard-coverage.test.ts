import { describe, expect, it } from "vitest";
import { listSyncHistories } from "@/lib/collector/sync-history";
import { shardOf } from "@/lib/collector/shards";
import { coversEveryShard, hasUncoveredOwner, isCoveredOwner, judgeCoverage, restrictToUncovered } from "@/lib/pipeline/shard-coverage";
import { makeCollectorModel, ownerOfShard } from "./shard-models";

describe("judgeCoverage", () => {
  const holding = { count: 4, held: [0, 1] };

  it("is none without a holding or newer models, or when no newer model held one of its shards", () => {
    expect(judgeCoverage(undefined, [{ count: 4, held: [0, 1, 2, 3] }])).toBe("none");
    expect(judgeCoverage(holding, [])).toBe("none");
    expect(judgeCoverage(holding, [{ count: 4, held: [2] }, { count: 4, held: [3] }])).toBe("none");
  });

  it("is all when newer models held each of its shards, partial when some", () => {
    expect(judgeCoverage(holding, [{ count: 4, held: [0] }, { count: 4, held: [1, 3] }])).toBe("all");
    expect(judgeCoverage(holding, [{ count: 4, held: [1, 2] }])).toBe("partial");
    // Held nothing: nothing of it is left to serve.
    expect(judgeCoverage({ count: 4, held: [] }, [{ count: 4, held: [] }])).toBe("all");
  });

  it("is partial when a newer model counts its shards otherwise (owners are judged one by one)", () => {
    expect(judgeCoverage(holding, [{ count: 8, held: [0, 1, 2, 3, 4, 5, 6, 7] }])).toBe("partial");
  });
});

describe("coversEveryShard and isCoveredOwner", () => {
  it("hold when the holdings of one count hold all of its shards, together", () => {
    expect(coversEveryShard([{ count: 4, held: [0, 1] }, { count: 4, held: [2] }])).toBe(false);
    expect(coversEveryShard([{ count: 4, held: [0, 1] }, { count: 4, held: [2, 3] }])).toBe(true);
    expect(coversEveryShard([{ count: 2, held: [0] }, { count: 4, held: [1, 2, 3] }])).toBe(false);
  });

  it("covers an owner by its shard under each newer model's count", () => {
    const owner = ownerOfShard(3, 4);
    expect(shardOf(owner, 4)).toBe(3);
    expect(isCoveredOwner(owner, [{ count: 4, held: [0, 1, 2] }])).toBe(false);
    expect(isCoveredOwner(owner, [{ count: 4, held: [3] }])).toBe(true);
    expect(isCoveredOwner(owner, [{ count: 2, held: [shardOf(owner, 2)] }])).toBe(true);
  });
});

describe("restrictToUncovered", () => {
  it("keeps only the flows, alerts, risks, translations, audits, samples and syncs of uncovered owners", () => {
    const kept = ownerOfShard(0, 4);
    const dropped = ownerOfShard(1, 4);
    const model = makeCollectorModel({ flows: [kept, dropped], held: [0, 1], takenAt: 1_000 });
    const restricted = restrictToUncovered(model, [{ count: 4, held: [1, 3] }]);
    expect(restricted.snapshot.flows.map((f) => f.id)).toEqual([kept]);
    expect(restricted.alerts.map((a) => a.flow)).toEqual([kept]);
    expect(restricted.risks.map((r) => r.flow)).toEqual([kept]);
    expect([...restricted.translationErrors.keys()]).toEqual([kept]);
    expect([...restricted.progress.current.flows.keys()]).toEqual([kept]);
    expect([...listSyncHistories(restricted.history.offsetSyncs)].map(([key]) => key)).toEqual([`${kept}|orders|0`]);
    expect([...restricted.offsetSyncsHeld!.keys()]).toEqual([`${kept}|orders|0`]);
    // What every collector reads stays; the merge takes the newest model's.
    expect(restricted.snapshot.clusters).toBe(model.snapshot.clusters);
    expect([restricted.snapshot.takenAt, restricted.shardHolding]).toEqual([1_000, { count: 4, held: [0, 1] }]);
    // The model itself is unchanged.
    expect(model.snapshot.flows.map((f) => f.id)).toEqual([kept, dropped]);
  });
});

describe("hasUncoveredOwner", () => {
  it("is true while one flow, alert or risk of the model is not covered", () => {
    const [a, b] = [ownerOfShard(0, 4), ownerOfShard(1, 4)];
    const model = makeCollectorModel({ flows: [a, b], held: [0, 1], takenAt: 1_000 });
    expect(hasUncoveredOwner(model, [{ count: 4, held: [0] }])).toBe(true);
    expect(hasUncoveredOwner(model, [{ count: 4, held: [0] }, { count: 4, held: [1] }])).toBe(false);
    // Only an alert left uncovered (its flow already gone from the model) still counts.
    const alertOnly = { ...model, snapshot: { ...model.snapshot, flows: [] }, risks: [] };
    expect(hasUncoveredOwner(alertOnly, [{ count: 4, held: [0] }])).toBe(true);
    expect(hasUncoveredOwner({ ...alertOnly, alerts: [] }, [{ count: 4, held: [0] }])).toBe(false);
  });
});
