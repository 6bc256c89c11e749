/**
 * A body given whole or in pieces (ReadModelPublication), cut into chunks of one size for rows of their own
 * (read-models.ts): every chunk `size` bytes but the last, whatever the pieces' lengths, so that a chunk the same size
 * as the previous cycle's overwrites it in place.
 */

/**
 * The chunks of `body`, in order: a view of a piece where the chunk lies within it, else the bytes copied into one
 * scratch Buffer that the next chunk reuses (read each chunk before asking for the next; SQLite copies what it binds).
 */
export function* cutBodyChunks(body: Buffer | readonly Buffer[], size: number): Generator<Buffer> {
  const pieces = Buffer.isBuffer(body) ? [body] : body;
  let scratch: Buffer | null = null;
  let filled = 0;
  for (const piece of pieces) {
    let at = 0;
    while (at < piece.length) {
      if (filled === 0 && piece.length - at >= size) {
        yield piece.subarray(at, at + size);
        at += size;
        continue;
      }
      scratch ??= Buffer.allocUnsafeSlow(size);
      const copied = piece.copy(scratch, filled, at, Math.min(piece.length, at + size - filled));
      filled += copied;
      at += copied;
      if (filled === size) {
        yield scratch;
        filled = 0;
      }
    }
  }
  if (filled > 0) yield (scratch as Buffer).subarray(0, filled);
}
