import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { encodeColumnar, encodeColumnarPieces } from "@/lib/pipeline/columnar-codec";
import { createSqliteStore } from "@/lib/store";
import { cutBodyChunks } from "@/lib/store/body-chunks";
import { readModelChunkBytes } from "@/lib/store/read-models";
import { makeColumnarSample } from "../pipeline/columnar-sample";
import { createRandom } from "../seeded-random";

/** Random pieces: empty ones, pieces shorter than a chunk, exactly one, and several chunks long. */
function makePieces(random: () => number, size: number): Buffer[] {
  const lengths = [0, 1, size - 1, size, size + 1, 3 * size + 7];
  return Array.from({ length: Math.floor(random() * 12) }, () => {
    const length = random() < 0.5 ? lengths[Math.floor(random() * lengths.length)]! : Math.floor(random() * 4 * size);
    return randomBytes(length);
  });
}

/** Every chunk, copied as it comes (the scratch Buffer is reused by the next). */
function listChunks(body: Buffer | readonly Buffer[], size: number): Buffer[] {
  return Array.from(cutBodyChunks(body, size), (c) => Buffer.from(c));
}

describe("cutBodyChunks", () => {
  it("cuts pieces into the chunks it cuts the joined body into, every one full but the last", () => {
    const random = createRandom(32);
    for (let round = 0; round < 300; round++) {
      const size = 1 + Math.floor(random() * 64);
      const pieces = makePieces(random, size);
      const whole = Buffer.concat(pieces);
      const chunks = listChunks(pieces, size);
      expect(Buffer.concat(chunks).equals(whole)).toBe(true);
      expect(chunks.map((c) => c.length)).toEqual(
        Array.from({ length: Math.ceil(whole.length / size) }, (_, i) => Math.min(size, whole.length - i * size)),
      );
      const fromWhole = listChunks(whole, size);
      expect(fromWhole.length).toBe(chunks.length);
      expect(fromWhole.every((c, i) => c.equals(chunks[i]!))).toBe(true);
    }
  });
});

describe("a read model published in pieces (SQLite)", () => {
  it("stores the chunks the joined body makes and reads back the joined body", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-body-chunks-"));
    try {
      const pieces = [10, readModelChunkBytes - 3, 0, 2 * readModelChunkBytes + 5, 100].map((n) => randomBytes(n));
      const whole = Buffer.concat(pieces);
      const inPieces = createSqliteStore(path.join(dir, "pieces.db"));
      const joined = createSqliteStore(path.join(dir, "joined.db"));
      await inPieces.publishReadModel({ shard: "all", cycle: 1, takenAt: 5, body: pieces });
      await joined.publishReadModel({ shard: "all", cycle: 1, takenAt: 5, body: whole });
      expect((await inPieces.readReadModel("all"))?.body.equals(whole)).toBe(true);
      // Compared with Buffer.equals: a deep equality walks 3 MiB byte by byte (seconds).
      const [a, b] = [await inPieces.readReadModel("all"), await joined.readReadModel("all")];
      expect({ ...a, body: null }).toEqual({ ...b, body: null });
      expect(a?.body.equals(b!.body)).toBe(true);

      const sample = makeColumnarSample();
      expect(Buffer.concat(encodeColumnarPieces(sample)).equals(encodeColumnar(sample))).toBe(true);
      await inPieces.publishReadModel({ shard: "all", cycle: 2, takenAt: 6, body: encodeColumnarPieces(sample) });
      expect((await inPieces.readReadModel("all"))?.body.equals(encodeColumnar(sample))).toBe(true);
      await inPieces.close();
      await joined.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
