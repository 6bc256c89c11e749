import type pg from "pg";
import type { StagedBlob } from "../engine/steps";
import { queryRows } from "./connection";

interface HeldBlob {
  chunk: number;
  at: number;
  /** null: the row was gone (packed) by the time its data was read. */
  data: Promise<Buffer | null>;
}

/**
 * The staged cycle blobs a reader has read, by row id. A staged row is inserted once and deleted when its bucket is
 * packed, never updated, so a blob read once is the row's for as long as it exists: a read lists the chunks' rows
 * (id, chunk, at: a few bytes each) and fetches only the data of rows it does not hold. At 10,000 partitions a flow
 * page read 50 groups' translation series, each fetching every staged blob of its chunks again (hex text, several
 * MiB a group): 1.4–1.8 s of CPU after each new cycle, 0.33–0.38 s with this. Concurrent reads share a fetch; the
 * blobs of rows no longer listed are dropped, so what is held is bounded by the staged table (about two raw packs'
 * width of cycles).
 */
export class StagedBlobs {
  private readonly held = new Map<number, HeldBlob>();

  constructor(private readonly table: string) {}

  /** The staged blobs of `chunks`, by id (the order they were written). */
  async read(pool: pg.Pool, chunks: readonly number[]): Promise<StagedBlob[]> {
    const listed = (
      await queryRows<{ id: string; chunk: number; at: string }>(
        pool,
        `SELECT id, chunk, at FROM ${this.table} WHERE chunk = ANY($1::int[]) ORDER BY id`,
        [chunks],
      )
    ).map((r) => ({ id: Number(r.id), chunk: r.chunk, at: Number(r.at) }));
    this.dropUnlisted(new Set(chunks), new Set(listed.map((r) => r.id)));
    const missing = listed.filter((r) => {
      const held = this.held.get(r.id);
      return held === undefined || held.chunk !== r.chunk || held.at !== r.at;
    });
    if (missing.length > 0) this.fetch(pool, missing);
    // Taken before the first await: a concurrent read may drop or replace an entry meanwhile.
    const pending = listed.map((r) => ({ ...r, data: this.held.get(r.id)!.data }));
    const blobs: StagedBlob[] = [];
    for (const p of pending) {
      const data = await p.data;
      if (data !== null) blobs.push({ id: p.id, chunk: p.chunk, at: p.at, data });
    }
    return blobs;
  }

  /** Starts one fetch of the rows' data; each row's promise is held at once, so concurrent reads wait for it. */
  private fetch(pool: pg.Pool, rows: readonly { id: number; chunk: number; at: number }[]): void {
    const fetched = queryRows<{ id: string; data: Buffer }>(pool, `SELECT id, data FROM ${this.table} WHERE id = ANY($1::bigint[])`, [
      rows.map((r) => r.id),
    ]).then((found) => new Map(found.map((r) => [Number(r.id), r.data])));
    for (const r of rows) {
      const held: HeldBlob = { chunk: r.chunk, at: r.at, data: fetched.then((byId) => byId.get(r.id) ?? null) };
      this.held.set(r.id, held);
      // A failed or empty fetch is not kept: the next read fetches the row again (or knows it is gone).
      held.data.then(
        (data) => {
          if (data === null && this.held.get(r.id) === held) this.held.delete(r.id);
        },
        () => {
          if (this.held.get(r.id) === held) this.held.delete(r.id);
        },
      );
    }
  }

  /** Forgets the held rows of the listed chunks that the listing no longer has (packed since). */
  private dropUnlisted(chunks: ReadonlySet<number>, listed: ReadonlySet<number>): void {
    for (const [id, held] of this.held) if (chunks.has(held.chunk) && !listed.has(id)) this.held.delete(id);
  }
}
