/**
 * Growing the typed arrays kept per partition or slot (the collector's sync histories, the translation's stores):
 * here, in the collector's layer, so that both may import it (ARCHITECTURE.md: layers import downward only).
 */

/** A typed array a per-partition store grows by doubling (at least 1,024 entries). */
type PartitionArray = Int32Array | Uint8Array | Float64Array;

/** The capacity that holds index `index` when `length` is full: doubled, at least `index + 1` and 1,024. */
export function growCapacity(index: number, length: number): number {
  return Math.max(index + 1, length * 2, 1024);
}

/**
 * A copy of `array` with `size` entries: its values first, then `fill` (the entry a new partition starts with).
 * Callers grow every per-partition array of a store to one size at once.
 */
export function growArray<T extends PartitionArray>(array: T, size: number, fill = 0): T {
  const grown = new (array.constructor as new (length: number) => T)(size);
  if (fill !== 0) grown.fill(fill);
  grown.set(array);
  return grown;
}
