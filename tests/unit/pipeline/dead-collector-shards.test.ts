import { describe, expect, it } from "vitest";
import { PublishedReadModels, publishReadModel } from "@/lib/pipeline/published-read-models";
import type { ReadModel } from "@/lib/pipeline/read-model";
import type { Store } from "@/lib/store";
import { makeCollectorModel, ownerOfShard } from "./shard-models";
import { createTempSqliteStores } from "./temp-sqlite-stores";

const stores = createTempSqliteStores("gapwatch-dead-collector-");
/** Session timeout 6 s + 3 polls of 2 s, as runtime.ts derives it: a model without a holding this old is dropped. */
const staleAfterMs = 12_000;
const [flowA, flowC, flowB] = [ownerOfShard(0, 4), ownerOfShard(1, 4), ownerOfShard(2, 4)];

/** The store, with the shards whose body a web instance read (each read is a decode). */
function countReads(store: Store): { store: Store; reads: string[] } {
  const reads: string[] = [];
  return { store: { ...store, readReadModel: async (shard) => (reads.push(shard), store.readReadModel(shard)) }, reads };
}

function describeServed(model: ReadModel | null) {
  return {
    flows: model?.snapshot.flows.map((f) => f.id).sort(),
    alerts: model?.alerts.map((a) => a.id).sort(),
    risks: model?.risks.map((r) => r.flow).sort(),
    takenAt: model?.snapshot.takenAt,
  };
}

describe("a web instance serving collectors that share the work, one of them dead", () => {
  it("serves a SIGKILLed collector's flows and alerts, as old as they are, until the survivor publishes their shards", async () => {
    const now = Date.now();
    const { store, reads } = countReads(stores.open());
    await publishReadModel(store, "c-dead", makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: now - 20_000 }));
    await publishReadModel(store, "c-live", makeCollectorModel({ flows: [flowB], held: [2, 3], takenAt: now - 1_000 }));
    const web = new PublishedReadModels(store, { staleAfterMs });
    await web.refresh();
    // 20 s old, beyond the 12 s after which the previous version dropped it: still served, and the merge is as old.
    expect(describeServed(web.latest())).toEqual({
      flows: [flowA, flowB].sort(), alerts: [`alert-${flowA}`, `alert-${flowB}`].sort(), risks: [flowA, flowB].sort(), takenAt: now - 20_000,
    });

    await publishReadModel(store, "c-live", makeCollectorModel({ flows: [flowA, flowB], held: [0, 1, 2, 3], takenAt: now, cycle: 2 }));
    await web.refresh();
    expect(describeServed(web.latest())).toEqual({
      flows: [flowA, flowB].sort(), alerts: [`alert-${flowA}`, `alert-${flowB}`].sort(), risks: [flowA, flowB].sort(), takenAt: now,
    });
    expect(web.latest()!.snapshot.flows.every((f) => f.partitions[0]!.sourceLogEnd === 200n)).toBe(true);
    expect(reads).toEqual(["c-live", "c-dead", "c-live"]);
    // The dead model is wholly covered: never read again.
    await web.refresh();
    expect(reads).toHaveLength(3);
  });

  it("drops the dead collector's flow once the survivor holds its shard without it (the flow was deleted meanwhile)", async () => {
    const now = Date.now();
    const store = stores.open();
    await publishReadModel(store, "c-dead", makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: now - 60_000 }));
    await publishReadModel(store, "c-live", makeCollectorModel({ flows: [flowB], held: [0, 1, 2, 3], takenAt: now }));
    const web = new PublishedReadModels(store, { staleAfterMs });
    await web.refresh();
    expect(describeServed(web.latest())).toEqual({ flows: [flowB], alerts: [`alert-${flowB}`], risks: [flowB], takenAt: now });
  });

  it("serves, of a dead model whose shards were partly gained, only the shards no newer model holds", async () => {
    const now = Date.now();
    const store = stores.open();
    await publishReadModel(store, "c-dead", makeCollectorModel({ flows: [flowA, flowC], held: [0, 1], takenAt: now - 30_000 }));
    await publishReadModel(store, "c-live", makeCollectorModel({ flows: [flowA, flowB], held: [0, 2, 3], takenAt: now, cycle: 3 }));
    const web = new PublishedReadModels(store, { staleAfterMs });
    await web.refresh();
    const served = web.latest()!;
    expect(describeServed(served)).toEqual({
      flows: [flowA, flowB, flowC].sort(), alerts: [flowA, flowB, flowC].map((f) => `alert-${f}`).sort(), risks: [flowA, flowB, flowC].sort(),
      takenAt: now - 30_000,
    });
    // flowA is the survivor's (cycle 3), flowC the dead collector's (cycle 1).
    const ends = Object.fromEntries(served.snapshot.flows.map((f) => [f.id, f.partitions[0]!.sourceLogEnd]));
    expect([ends[flowA], ends[flowC]]).toEqual([300n, 100n]);
  });

  it("reads no dead row at start once the live models hold every shard", async () => {
    const now = Date.now();
    const { store, reads } = countReads(stores.open());
    for (let i = 0; i < 3; i++) {
      await publishReadModel(store, `c-gone-${i}`, makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: now - 100_000 * (i + 1) }));
    }
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: now - 500 }));
    await publishReadModel(store, "c-two", makeCollectorModel({ flows: [flowB], held: [2, 3], takenAt: now - 700 }));
    const web = new PublishedReadModels(store, { staleAfterMs });
    await web.refresh();
    expect(reads).toEqual(["c-one", "c-two"]);
    expect(describeServed(web.latest()).flows).toEqual([flowA, flowB].sort());
  });

  it("drops a model without a holding (an older collector's) once older than staleAfterMs, as before", async () => {
    const now = Date.now();
    const store = stores.open();
    const stale = { ...makeCollectorModel({ flows: [flowC], held: [1], takenAt: now - 13_000 }), shardHolding: undefined };
    const fresh = { ...makeCollectorModel({ flows: [flowB], held: [2], takenAt: now - 1_000 }), shardHolding: undefined };
    await publishReadModel(store, "c-old-version", stale);
    await publishReadModel(store, "c-old-version-2", fresh);
    const web = new PublishedReadModels(store, { staleAfterMs });
    await web.refresh();
    expect(describeServed(web.latest()).flows).toEqual([flowB]);
  });

  it("keeps a live collector's flows served while it holds no shard for a rebalance, until a model holds them again", async () => {
    const now = Date.now();
    const { store, reads } = countReads(stores.open());
    const web = new PublishedReadModels(store, { staleAfterMs });
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: now - 4_000, cycle: 1 }));
    await publishReadModel(store, "c-two", makeCollectorModel({ flows: [flowB], held: [2, 3], takenAt: now - 3_000, cycle: 1 }));
    await web.refresh();
    // A rebalance: c-one's cycle held no shard and published no flow.
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [], held: [], takenAt: now - 2_000, cycle: 2 }));
    await web.refresh();
    expect(describeServed(web.latest())).toEqual({
      flows: [flowA, flowB].sort(), alerts: [`alert-${flowA}`, `alert-${flowB}`].sort(), risks: [flowA, flowB].sort(), takenAt: now - 4_000,
    });
    // c-two gains shard 0 only: flowA is its. The ghost still holds shard 1, where it has no flow: it serves nothing,
    // and its age no longer ages the merge (nor does c-one's model of no shard, older than c-two's).
    await publishReadModel(store, "c-two", makeCollectorModel({ flows: [flowA, flowB], held: [0, 2, 3], takenAt: now - 1_000, cycle: 2 }));
    await web.refresh();
    expect(describeServed(web.latest()).flows).toEqual([flowA, flowB].sort());
    expect(web.latest()!.snapshot.flows.map((f) => f.partitions[0]!.sourceLogEnd)).toEqual([200n, 200n]);
    expect(web.latest()!.snapshot.takenAt).toBe(now - 1_000);
    // c-one holds shard 1 again: nothing of the ghost is left, and the merge is as fresh as its parts.
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [], held: [1], takenAt: now, cycle: 3 }));
    await web.refresh();
    expect(describeServed(web.latest())).toEqual({
      flows: [flowA, flowB].sort(), alerts: [`alert-${flowA}`, `alert-${flowB}`].sort(), risks: [flowA, flowB].sort(), takenAt: now - 1_000,
    });
    expect(reads).toEqual(["c-two", "c-one", "c-one", "c-two", "c-one"]);
  });

  it("deletes a dead collector's row from the store once wholly superseded and 15 minutes old, and no other", async () => {
    const now = Date.now();
    const store = stores.open();
    const minutes = (n: number) => now - n * 60_000;
    // Every restart leaves a row: two dead ones wholly covered by the live collectors' holdings, one younger than the
    // grace, one dead collector still the only source of shard 1's flow (c-two holds only 2 and 3), and an old model
    // without a holding (a collector of an older version).
    await publishReadModel(store, "c-dead-old", makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: minutes(40) }));
    await publishReadModel(store, "c-dead-older", makeCollectorModel({ flows: [flowA], held: [0], takenAt: minutes(90) }));
    await publishReadModel(store, "c-dead-young", makeCollectorModel({ flows: [flowA], held: [0], takenAt: minutes(14) }));
    await publishReadModel(store, "c-only-source", makeCollectorModel({ flows: [flowC], held: [1], takenAt: minutes(30) }));
    await publishReadModel(store, "c-legacy", { ...makeCollectorModel({ flows: [flowB], held: [3], takenAt: minutes(20) }), shardHolding: undefined });
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [flowA], held: [0], takenAt: now - 500 }));
    await publishReadModel(store, "c-two", makeCollectorModel({ flows: [flowB], held: [2, 3], takenAt: now - 700 }));
    const web = new PublishedReadModels(store, { staleAfterMs });
    await web.refresh();
    const shards = async () => (await store.listReadModelVersions()).map((v) => v.shard);
    expect(await shards()).toEqual(["c-dead-young", "c-one", "c-only-source", "c-two"]);
    expect(describeServed(web.latest()).flows).toEqual([flowA, flowB, flowC].sort());
    // Once a live model holds shard 1 too, the last dead row serves nothing: deleted at the next refresh.
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [flowA, flowC], held: [0, 1], takenAt: now, cycle: 2 }));
    await web.refresh();
    expect(await shards()).toEqual(["c-dead-young", "c-one", "c-two"]);
    expect(describeServed(web.latest())).toEqual({
      flows: [flowA, flowB, flowC].sort(), alerts: [flowA, flowB, flowC].map((f) => `alert-${f}`).sort(), risks: [flowA, flowB, flowC].sort(),
      takenAt: now - 700,
    });
  });

  it("never deletes the one collector's model (no scale-out), however old: a stuck collector's data stays served", async () => {
    const now = Date.now();
    const store = stores.open();
    await publishReadModel(store, "all", { ...makeCollectorModel({ flows: [flowA], held: [0], takenAt: now - 6 * 3_600_000 }), shardHolding: undefined });
    const web = new PublishedReadModels(store); // role all's server and role web without scaleOut: nothing is stale
    await web.refresh();
    await web.refresh();
    expect([(await store.listReadModelVersions()).map((v) => v.shard), describeServed(web.latest()).flows]).toEqual([["all"], [flowA]]);
  });

  it("keeps a row whose earlier model is a ghost still served, however old its newest model is", async () => {
    const now = Date.now();
    const store = stores.open();
    const web = new PublishedReadModels(store, { staleAfterMs, retireAfterMs: 1_000 });
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [flowA], held: [0, 1], takenAt: now - 20_000, cycle: 1 }));
    await publishReadModel(store, "c-two", makeCollectorModel({ flows: [flowB], held: [2, 3], takenAt: now - 19_000, cycle: 1 }));
    await web.refresh();
    // c-one gave up its shards (a rebalance) and died: its newest model holds nothing, its previous one is a ghost.
    await publishReadModel(store, "c-one", makeCollectorModel({ flows: [], held: [], takenAt: now - 18_000, cycle: 2 }));
    await publishReadModel(store, "c-two", makeCollectorModel({ flows: [flowB], held: [2, 3], takenAt: now - 1_000, cycle: 2 }));
    await web.refresh();
    expect([(await store.listReadModelVersions()).map((v) => v.shard), describeServed(web.latest()).flows]).toEqual([["c-one", "c-two"], [flowA, flowB].sort()]);
  });
});
