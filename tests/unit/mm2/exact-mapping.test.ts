import { describe, expect, it } from "vitest";
import {
  classifySyncSteps,
  findLastAtOrBefore,
  listDownstreamTruncations,
  listRewinds,
  listUpstreamGaps,
  mapUpstreamToDownstream,
  selectLatestEpoch,
} from "@/lib/mm2/exact-mapping";
import type { SyncPoint } from "@/lib/mm2/types";
import { JavaRandom } from "./helpers/java-random";

const history = (...pairs: [number, number][]): SyncPoint[] =>
  pairs.map(([upstream, downstream]) => ({ upstream: BigInt(upstream), downstream: BigInt(downstream) }));

describe("mapUpstreamToDownstream", () => {
  it("returns none without syncs and before the first sync", () => {
    expect(mapUpstreamToDownstream([], 5n)).toEqual({ kind: "none", reason: "no-sync" });
    expect(mapUpstreamToDownstream(history([100, 200]), 99n)).toEqual({ kind: "none", reason: "before-first-sync" });
  });

  it("is exact at a sync", () => {
    expect(mapUpstreamToDownstream(history([100, 200], [150, 260]), 150n)).toEqual({ kind: "exact", downstream: 260n, basis: "sync" });
  });

  it("is exact inside a one-to-one run where both offsets advanced equally", () => {
    expect(mapUpstreamToDownstream(history([100, 1000], [200, 1100]), 150n)).toEqual({
      kind: "exact",
      downstream: 1050n,
      basis: "one-to-one-run",
    });
  });

  it("brackets offsets inside an upstream gap with the tightest provable bounds", () => {
    // 10 upstream offsets, 5 downstream: 4 records replicated strictly between the syncs.
    const syncs = history([100, 200], [110, 205]);
    expect(mapUpstreamToDownstream(syncs, 105n)).toEqual({ kind: "bracket", low: 201n, high: 205n, reason: "upstream-gap" });
    expect(mapUpstreamToDownstream(syncs, 109n)).toEqual({ kind: "bracket", low: 204n, high: 205n, reason: "upstream-gap" });
  });

  it("is exact right after a sync even across a gap, because the next record is the next target offset", () => {
    expect(mapUpstreamToDownstream(history([100, 200], [110, 205]), 101n)).toEqual({
      kind: "exact",
      downstream: 201n,
      basis: "pinned-by-bounds",
    });
  });

  it("brackets a compacted stretch of a source topic", () => {
    // Offsets 1..49 of a compacted topic: only 9 survived and were replicated.
    expect(mapUpstreamToDownstream(history([0, 0], [50, 10]), 30n)).toEqual({ kind: "bracket", low: 1n, high: 10n, reason: "upstream-gap" });
  });

  it("gives an open bracket beyond the newest sync, which MM2 may not have replicated yet", () => {
    expect(mapUpstreamToDownstream(history([100, 200]), 150n)).toEqual({ kind: "bracket", low: 201n, high: null, reason: "beyond-newest-sync" });
  });

  it("falls back to monotonic bounds when downstream advanced more than upstream", () => {
    expect(mapUpstreamToDownstream(history([100, 200], [110, 230]), 105n)).toEqual({
      kind: "bracket",
      low: 201n,
      high: 230n,
      reason: "downstream-gap",
    });
  });

  it("uses only monotonic bounds when the target is not dense (exactly-once transaction markers)", () => {
    expect(mapUpstreamToDownstream(history([100, 1000], [200, 1100]), 150n, { denseDownstream: false })).toEqual({
      kind: "bracket",
      low: 1001n,
      high: 1100n,
      reason: "downstream-gap",
    });
  });

  it("maps with the latest epoch only after an upstream rewind", () => {
    const syncs = history([0, 0], [100, 100], [200, 200], [50, 300], [150, 400]);
    expect(mapUpstreamToDownstream(syncs, 100n)).toEqual({ kind: "exact", downstream: 350n, basis: "one-to-one-run" });
    expect(mapUpstreamToDownstream(syncs, 40n)).toEqual({ kind: "none", reason: "before-first-sync" });
  });

  it("starts a new epoch at a downstream truncation and at a re-replicated offset", () => {
    expect(mapUpstreamToDownstream(history([0, 0], [100, 100], [150, 90]), 120n)).toEqual({ kind: "none", reason: "before-first-sync" });
    expect(mapUpstreamToDownstream(history([100, 200], [100, 250]), 100n)).toMatchObject({ kind: "exact", downstream: 250n });
  });

  it("ignores exact repeats of the previous sync", () => {
    expect(selectLatestEpoch(history([0, 0], [100, 100], [100, 100], [200, 200]))).toEqual(history([0, 0], [100, 100], [200, 200]));
    expect(mapUpstreamToDownstream(history([0, 0], [100, 100], [100, 100], [200, 200]), 150n)).toMatchObject({ downstream: 150n });
  });

  it("always contains the true downstream position in simulated replication with gaps and dropped syncs", () => {
    const random = new JavaRandom(11n);
    const records: SyncPoint[] = [];
    const syncs: SyncPoint[] = [];
    let previousUpstream = -1n;
    for (let upstream = 0n; upstream < 5000n; upstream++) {
      if (random.nextDouble() < 0.2) continue; // compacted away or a transaction marker upstream
      const record = { upstream, downstream: BigInt(records.length) };
      records.push(record);
      // OffsetSyncWriter: first record, upstream gap, or offset.lag.max; some syncs are dropped.
      const due = syncs.length === 0 || upstream - previousUpstream !== 1n || random.nextDouble() < 0.02;
      if (due && random.nextDouble() < 0.7) syncs.push(record);
      previousUpstream = upstream;
    }
    const truePosition = (u: bigint): bigint => records.find((r) => r.upstream >= u)?.downstream ?? BigInt(records.length);
    let exact = 0;
    for (let u = 0n; u < 5010n; u++) {
      const mapping = mapUpstreamToDownstream(syncs, u);
      const actual = truePosition(u);
      if (mapping.kind === "exact") {
        exact++;
        expect(mapping.downstream, `u=${u}`).toBe(actual);
      } else if (mapping.kind === "bracket") {
        expect(mapping.low <= actual && (mapping.high === null || actual <= mapping.high), `u=${u} ${actual}`).toBe(true);
      } else {
        expect(u < (syncs[0]?.upstream ?? 0n)).toBe(true);
      }
    }
    expect(exact).toBeGreaterThan(100);
  });
});

describe("findLastAtOrBefore", () => {
  it("finds the last sync at or before every offset of an increasing epoch, as a scan from the end does", () => {
    const epoch = history([10, 0], [20, 5], [35, 9], [36, 10], [90, 40]);
    const scan = (offset: bigint) => epoch.findLastIndex((s) => s.upstream <= offset);
    for (let offset = 0n; offset <= 100n; offset++) expect(findLastAtOrBefore(epoch, offset), `offset ${offset}`).toBe(scan(offset));
    expect([0n, 9n, 10n, 19n, 20n, 35n, 36n, 89n, 90n, 100n].map((o) => findLastAtOrBefore(epoch, o))).toEqual([-1, -1, 0, 0, 1, 2, 3, 3, 4, 4]);
    expect(findLastAtOrBefore([], 5n)).toBe(-1);
  });
});

describe("sync history analysis", () => {
  const syncs = history([0, 0], [100, 100], [130, 110], [130, 110], [90, 120], [200, 230], [250, 200]);

  it("classifies every consecutive pair in history order", () => {
    expect(classifySyncSteps(syncs).map((s) => s.kind)).toEqual([
      "advance",
      "advance",
      "repeat",
      "rewind",
      "advance",
      "downstream-truncation",
    ]);
  });

  it("lists upstream gaps with how many upstream offsets were skipped", () => {
    expect(listUpstreamGaps(syncs)).toEqual([
      { kind: "advance", index: 2, fromUpstream: 100n, toUpstream: 130n, fromDownstream: 100n, toDownstream: 110n, skippedUpstream: 20n },
    ]);
  });

  it("lists rewinds and downstream truncations", () => {
    expect(listRewinds(syncs).map((s) => [s.index, s.fromUpstream, s.toUpstream])).toEqual([[4, 130n, 90n]]);
    expect(listDownstreamTruncations(syncs).map((s) => [s.index, s.fromDownstream, s.toDownstream])).toEqual([[6, 230n, 200n]]);
  });

  it("finds nothing in a gap-free history", () => {
    const clean = history([0, 0], [101, 101], [202, 202]);
    expect([listUpstreamGaps(clean), listRewinds(clean), listDownstreamTruncations(clean)]).toEqual([[], [], []]);
  });
});
