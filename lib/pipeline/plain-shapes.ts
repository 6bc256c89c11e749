/**
 * Checks a column writer makes before it writes objects a column at a time (served-flows.ts, served-checkpoints.ts,
 * served-clusters.ts): the encoder takes an object's shape from its own keys in order, and writes a column of bigints
 * as numbers while every one is exact, so only objects of exactly the expected keys and exact bigints may skip it.
 */

/** Whether `keys` are `expected`, in the same order. */
export function hasKeysInOrder(keys: readonly string[], expected: readonly string[]): boolean {
  if (keys.length !== expected.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== expected[i]) return false;
  return true;
}

/** Whether `value` is a plain object (Object.prototype) whose own enumerable keys are `keys`, in that order. */
export function isPlainObjectOf(value: unknown, keys: readonly string[]): boolean {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return hasKeysInOrder(Object.keys(value), keys);
}

/** Whether `value` is a bigint held exactly as a number (within ±(2^53 − 1)). */
export function isExactBigint(value: unknown): boolean {
  return typeof value === "bigint" && Number.isSafeInteger(Number(value));
}
