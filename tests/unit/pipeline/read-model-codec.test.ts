import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAlertService } from "@/lib/alerts/alert-service";
import { parseConfigText } from "@/lib/config";
import { CyclePipeline } from "@/lib/pipeline/cycle-pipeline";
import { decodeTagged, encodeTagged } from "@/lib/pipeline/read-model-codec";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { createSqliteStore } from "@/lib/store";
import { makeFlowPartition, makeHistory, makeSnapshot } from "../detect/fixtures";

const ABOVE_2_53 = 9007199254740993n;

describe("read-model codec", () => {
  it("round-trips bigints beyond 2^53, negative ones, and Map/Set nested in each other exactly", async () => {
    const value = {
      offsets: [0n, -1n, ABOVE_2_53, 9223372036854775807n],
      byKey: new Map<string, unknown>([
        ["east->west|orders|2", [{ upstream: 1199n, downstream: 5199n }]],
        ["nested", new Map([[3, new Set([1n, 2n])]])],
      ]),
      groups: new Set(["gapwatch-fast", "gapwatch-slow"]),
      mapKeyedByBigint: new Map([[ABOVE_2_53, "x"]]),
      plain: { a: 1, b: "two", c: null, d: [true, false] },
    };
    const decoded = (await decodeTagged(encodeTagged(value))) as typeof value;
    expect(decoded).toEqual(value);
    expect(decoded.offsets[2]).toBe(ABOVE_2_53);
    expect(decoded.byKey).toBeInstanceOf(Map);
    const nested = decoded.byKey.get("nested") as Map<number, Set<bigint>>;
    expect([...nested.get(3)!]).toEqual([1n, 2n]);
    expect(decoded.groups).toBeInstanceOf(Set);
    expect(decoded.mapKeyedByBigint.get(ABOVE_2_53)).toBe("x");
  });

  it("round-trips the progress window's typed arrays, non-finite numbers, and data that looks like a tag", async () => {
    const value = {
      positions: BigInt64Array.from([5n, -7n, ABOVE_2_53]),
      known: Uint8Array.from([1, 0, 1]),
      odd: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.5],
      lookalike: { $t: "bigint", v: "12" },
      lookalikeMap: { $t: "map", v: [["k", 1]] },
      markerStrings: ["\u00011234", "\u0001\u00015", "\u0001", "plain"],
    };
    const text = encodeTagged(value);
    const decoded = (await decodeTagged(text)) as typeof value;
    expect(decoded.positions).toBeInstanceOf(BigInt64Array);
    expect([...decoded.positions]).toEqual([5n, -7n, ABOVE_2_53]);
    expect([...decoded.known]).toEqual([1, 0, 1]);
    expect(decoded.known).toBeInstanceOf(Uint8Array);
    expect(decoded.odd).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.5]);
    expect(decoded.lookalike).toEqual({ $t: "bigint", v: "12" });
    expect(decoded.lookalikeMap).toEqual({ $t: "map", v: [["k", 1]] });
    expect(decoded.markerStrings).toEqual(["\u00011234", "\u0001\u00015", "\u0001", "plain"]);
  });

  it("rejects a tag it does not know instead of passing it through as data", async () => {
    await expect(decodeTagged('{"x":{"$t":"date","v":"2025"}}')).rejects.toThrow('unknown tag "date" in an encoded read model');
  });

  it("writes long arrays as lines of about 256 KiB, nested ones first, and decodes them back in order", async () => {
    // 3,000 strings of 100 characters (102 with quotes): a first line of 16 (1,649 characters with commas and
    // brackets), then as many as that size says fit 256 KiB (2,544: 262,033 characters), then the other 440. The 301
    // items of `holes` (undefined written as null, as JSON writes arrays): 16, then the other 285.
    const strings = Array.from({ length: 3000 }, (_, i) => String(i).padStart(100, "x"));
    const text = encodeTagged({ strings, short: [1n, 2n], holes: [...Array.from({ length: 300 }, () => undefined), 7n] });
    const lines = text.split("\n");
    expect(lines.map((l) => l.length)).toEqual([1_649, 262_033, 45_321, 81, 1_431, 101]);
    expect(lines[5]).toBe('{"strings":{"$t":"lines","v":[0,1,2]},"short":["\\u00011","\\u00012"],"holes":{"$t":"lines","v":[3,4]}}');
    expect(await decodeTagged(text)).toEqual({ strings, short: [1n, 2n], holes: [...Array.from({ length: 300 }, () => null), 7n] });
    // A Map of 300 arrays of 300 bigints: each array two lines (16, then 284), then the map's 300 entries (two lines),
    // then the value.
    const nested = new Map(Array.from({ length: 300 }, (_, k) => [`k${k}`, Array.from({ length: 300 }, (_, i) => BigInt(k * 1000 + i))]));
    const nestedText = encodeTagged({ nested });
    expect(nestedText.split("\n")).toHaveLength(603);
    const decoded = (await decodeTagged(nestedText)) as { nested: Map<string, bigint[]> };
    expect(decoded).toEqual({ nested });
    expect(decoded.nested.get("k299")![299]).toBe(299_299n);
  });

  it("lets the event loop run while it decodes a large text", async () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ topic: `orders-${i % 50}`, partition: i, offset: BigInt(i) * 1_000_003n }));
    const text = encodeTagged({ rows });
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    const decoding = decodeTagged(text);
    expect(ranMeanwhile).toBe(false);
    const decoded = (await decoding) as { rows: typeof rows };
    expect(ranMeanwhile).toBe(true);
    expect([decoded.rows.length, decoded.rows[199_999]!.offset]).toEqual([200_000, 199_999n * 1_000_003n]);
  });

  it("round-trips a real pipeline read model (alerts, translations, progress, history) to an equal model", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-codec-"));
    const store = createSqliteStore(path.join(dir, "gapwatch.db"));
    try {
      const config = parseConfigText("clusters:\n  - alias: east\n    bootstrap: east:9092\n  - alias: west\n    bootstrap: west:9092\n", "test.yaml", {});
      const pipeline = new CyclePipeline(config, store, createAlertService(store, config));
      const history = makeHistory([[1199, 5199]]);
      const partitions = (logStart: bigint) => [makeFlowPartition({ sourceLogStart: logStart, sourceLogEnd: 2000n, mm2Position: 1200n, targetLogEnd: 5200n, latestSync: { upstream: 1199n, downstream: 5199n } })];
      const first = makeSnapshot({ cycle: 1, partitions: partitions(1000n) });
      await pipeline.processCycle(first, null, history);
      const model: ReadModel = await pipeline.processCycle(makeSnapshot({ cycle: 2, partitions: partitions(1700n) }), first, history);
      expect(model.alerts.map((a) => a.type)).toEqual(["DATA_LOSS"]);
      const decoded = (await decodeTagged(encodeTagged(model))) as ReadModel;
      expect(decoded).toEqual(model);
      expect(decoded.snapshot.flows[0]!.partitions[0]!.mm2Position).toBe(1200n);
      expect(decoded.history.offsetSyncs.get("east->west|orders|2")).toEqual([{ upstream: 1199n, downstream: 5199n }]);
      expect([...decoded.progress.current.flows.get("east->west")!.positions]).toEqual([1200n]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
