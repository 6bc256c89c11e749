import { describe, expect, it } from "vitest";
import { SyncHistoryStore } from "@/lib/collector/sync-history-store";
import { flowPartitionKey } from "@/lib/collector/types";
import { createOffsetSyncStore, selectLatestEpoch, type SyncPoint, toOptionalLong } from "@/lib/mm2";
import { mapIdealOffset, SyncModelCache, translateFlow } from "@/lib/translation";
import { createRandom } from "../seeded-random";
import { FLOW, makeFlow, makeFlowPartition, makeGroup, T0 } from "./fixtures";

/**
 * A numeric row's ideal position comes from the partition's two newest syncs, kept as numbers when its model took a
 * sync (flow-rows.ts locateRow), where its committed offset is at or past the sync before the newest; else from a
 * search of the history. Over random cycles of the collector's store (syncs appended, repeated, rewound, trimmed at
 * the bound) and committed offsets before, at, between and beyond the newest syncs, every row must answer what the
 * bigint rules answer: mapIdealOffset over the latest epoch of the history, and lib/mm2's OffsetSyncStore fed every sync.
 */
const partitionCount = 6;
const bound = 8;

/** Appends a random sync (or none) to `history`: mostly ahead in both offsets, sometimes a repeat or a rewind. */
function nextSync(random: () => number, history: readonly SyncPoint[]): SyncPoint | null {
  const roll = random();
  if (roll < 0.35) return null;
  const last = history.at(-1);
  if (last === undefined) return { upstream: BigInt(Math.floor(random() * 50)), downstream: BigInt(Math.floor(random() * 50)) };
  if (roll < 0.45) return { ...last };
  // A rewind upstream, or a downstream that does not advance: a new epoch starts.
  if (roll < 0.5) return { upstream: last.upstream / 2n, downstream: last.downstream + 5n };
  if (roll < 0.55) return { upstream: last.upstream + 10n, downstream: last.downstream };
  return { upstream: last.upstream + BigInt(1 + Math.floor(random() * 40)), downstream: last.downstream + BigInt(1 + Math.floor(random() * 50)) };
}

/** A committed offset near the partition's newest syncs (or anywhere up to past the newest). */
function pickCommitted(random: () => number, history: readonly SyncPoint[]): bigint {
  const newest = history.at(-1)!.upstream;
  const previous = history.at(-2)?.upstream ?? newest;
  const roll = random();
  if (roll < 0.25) return previous + BigInt(Math.floor(random() * Number(newest - previous + 1n)));
  if (roll < 0.35) return previous;
  if (roll < 0.45) return newest;
  if (roll < 0.6) return newest + BigInt(1 + Math.floor(random() * 20));
  return BigInt(Math.floor(random() * Number(newest + 10n)));
}

describe("ideal positions from the two newest syncs", () => {
  it("over random cycles with one cache, every row answers what mapIdealOffset and MM2's store answer", () => {
    for (const seed of [1, 2, 3, 4]) {
      const random = createRandom(seed);
      const store = new SyncHistoryStore(bound);
      const key = (p: number) => flowPartitionKey(FLOW, "orders", p);
      const partitions = Array.from({ length: partitionCount }, (_, p) => makeFlowPartition({ partition: p, targetDensityIssue: p % 3 === 2 ? "transaction markers" : null }));
      const flow = makeFlow({ partitions });
      const cache = new SyncModelCache();
      // MM2's store took every sync, the ones the collector's history trimmed away too (as the kept models did).
      const everySync = partitions.map((): SyncPoint[] => []);
      for (let c = 0; c < 40; c++) {
        for (let p = 0; p < partitionCount; p++) {
          const sync = nextSync(random, store.list(key(p)));
          if (sync === null) continue;
          store.append(key(p), [sync]);
          everySync[p]!.push(sync);
        }
        const held = Array.from({ length: partitionCount }, (_, p) => p).filter((p) => store.list(key(p)).length > 0);
        const groups = [0, 1, 2].map((g) => makeGroup(`g${g}`, Object.fromEntries(held.map((p) => [`orders/${p}`, pickCommitted(random, store.list(key(p)))]))));
        const ft = translateFlow({ flow, sourceGroups: groups, syncHistory: store, now: T0 + c * 5_000, cache });
        cache.endCycle();
        for (const g of ft.groups) {
          for (const row of g.partitions) {
            const history = store.list(key(row.partition));
            const dense = row.partition % 3 !== 2;
            const mm2 = createOffsetSyncStore({ initializationMustReadToEnd: false });
            for (const s of everySync[row.partition]!) mm2.addSync({ topic: "orders", partition: row.partition, ...s });
            mm2.markReadToEnd();
            // −1: older than the oldest sync MM2 keeps, a row without a translation.
            const mapped = toOptionalLong(mm2.translateDownstream(g.group, { topic: "orders", partition: row.partition }, row.committed));
            const translated = mapped === -1n ? null : mapped;
            const expected = { ideal: mapIdealOffset(selectLatestEpoch(history), row.committed, dense), translated };
            const actual = { ideal: row.ideal, translated: row.translation.kind === "translated" ? row.translation.downstream : null };
            expect([seed, c, row.partition, row.committed, actual]).toEqual([seed, c, row.partition, row.committed, expected]);
          }
        }
      }
    }
  });
});
