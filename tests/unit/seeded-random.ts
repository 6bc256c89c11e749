/**
 * A small deterministic generator (mulberry32) for the differential tests' random cycles: the same seed gives the
 * same cycles on every run, so a failure names a seed that reproduces it.
 */
export function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
