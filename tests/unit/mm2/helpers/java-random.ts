/**
 * java.util.Random (48-bit LCG) and RandomSupport.boundedNextLong, so the randomized cases of
 * Kafka's OffsetSyncStoreTest (`new Random(0L)`) feed exactly the same sequences here.
 * Ported from the JDK's documented algorithm (Random.next/nextLong/nextDouble, Random.longs).
 */
const MULTIPLIER = 0x5deece66dn;
const ADDEND = 0xbn;
const MASK_48 = (1n << 48n) - 1n;
const DOUBLE_UNIT = 2 ** -53;

/** A java.util.Random with the JDK's exact output sequence. */
export class JavaRandom {
  private seed: bigint;

  constructor(seed: bigint) {
    this.seed = (seed ^ MULTIPLIER) & MASK_48;
  }

  /** Random.next(bits): the top `bits` of the new seed, as a Java int. */
  nextBits(bits: number): bigint {
    this.seed = (this.seed * MULTIPLIER + ADDEND) & MASK_48;
    return BigInt.asIntN(32, this.seed >> BigInt(48 - bits));
  }

  /** Random.nextLong(). */
  nextLong(): bigint {
    return BigInt.asIntN(64, (this.nextBits(32) << 32n) + this.nextBits(32));
  }

  /** Random.nextDouble(). */
  nextDouble(): number {
    return Number((this.nextBits(26) << 27n) + this.nextBits(27)) * DOUBLE_UNIT;
  }

  /** RandomSupport.boundedNextLong(rng, origin, bound), as used by Random.longs(n, origin, bound). */
  nextLongBetween(origin: bigint, bound: bigint): bigint {
    let r = this.nextLong();
    if (origin >= bound) return r;
    const n = BigInt.asIntN(64, bound - origin);
    const m = n - 1n;
    if ((n & m) === 0n) return (r & m) + origin;
    if (n > 0n) {
      for (let u = BigInt.asUintN(64, r) >> 1n; ; u = BigInt.asUintN(64, this.nextLong()) >> 1n) {
        r = u % n;
        if (BigInt.asIntN(64, u + m - r) >= 0n) break;
      }
      return r + origin;
    }
    while (r < origin || r >= bound) r = this.nextLong();
    return r;
  }

  /** Random.longs(count, origin, bound) as an array. */
  longs(count: number, origin: bigint, bound: bigint): bigint[] {
    return Array.from({ length: count }, () => this.nextLongBetween(origin, bound));
  }
}
