// Seeded randomness, so a soak run can be repeated with --seed.

/** mulberry32: a small, fast 32-bit PRNG; returns numbers in [0, 1). */
export function createRng(seed: number): () => number {
  // Scrambled first (murmur3's finalizer constant): neighbouring seeds start far apart.
  let a = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws items in shuffled rounds: every item once per round, so a short run still sees most kinds. */
export function createShuffleBag<T>(items: readonly T[], rng: () => number): () => T {
  let bag: T[] = [];
  return () => {
    if (bag.length === 0) {
      bag = [...items];
      for (let i = bag.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [bag[i], bag[j]] = [bag[j]!, bag[i]!];
      }
    }
    return bag.pop()!;
  };
}
