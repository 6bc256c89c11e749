/**
 * A value with every kind the columnar codec writes (rows alike with offsets above 2^53, nulls, optional fields, nested
 * arrays, Maps, Sets, typed arrays, NaN, −0, bigints beyond int64, UTF-8 strings), the same on every call: the
 * previous text form's fixture (fixtures/columnar-text-v1.txt) is this value as a collector of that version wrote it.
 */
export function makeColumnarSample(): Record<string, unknown> {
  const rows = Array.from({ length: 300 }, (_, i) => ({
    topic: `orders-${i % 37}-ü✓`,
    partition: i,
    sourceLogEnd: 5_000_000_000n + BigInt(i) * 4_294_967_311n,
    mm2Position: i % 5 === 0 ? null : 4_294_967_296n + BigInt(i),
    lag: i === 7 ? 9007199254740993n : BigInt(i % 3),
    rate: i % 2 === 0 ? i / 3 : -i,
    latestSync: i % 4 === 0 ? null : { upstream: BigInt(i) << 33n, downstream: BigInt(i) },
    replicas: i % 9 === 0 ? [] : [1, 2, 3].slice(0, (i % 3) + 1),
    stale: i % 6 === 0,
    ...(i % 10 === 3 ? { copierChange: { from: "mm2-a", at: 1_796_000_000_000 + i } } : {}),
  }));
  return {
    snapshot: { cycle: 3, rows },
    numbers: [Number.NaN, Number.POSITIVE_INFINITY, -0, 0.5, 2 ** 40, ...Array.from({ length: 80 }, (_, i) => i * 1.5)],
    huge: [2n ** 63n, -(2n ** 70n), ...Array.from({ length: 20 }, (_, i) => BigInt(i))],
    byKey: new Map(Array.from({ length: 70 }, (_, i) => [`east->west|orders|${i}`, [{ upstream: BigInt(i) * 3n, downstream: BigInt(i) }]])),
    groups: new Set(Array.from({ length: 100 }, (_, i) => `group-${i}`)),
    positions: BigInt64Array.from([5n, -7n, 9007199254740993n]),
    known: Uint8Array.from([1, 0, 1]),
    starts: Float64Array.from([1.5, Number.NaN, 2 ** 52]),
    mixed: [1, "one", 1n, null, true, { a: 1 }, [2], ...Array.from({ length: 10 }, () => null)],
  };
}
