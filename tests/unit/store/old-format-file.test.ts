import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "@/lib/store";
import { runReads, writeHistory } from "./old-format-world";

/**
 * fixtures/store-before-engine.db was written by the store code before the store engine (commit f821550, whose
 * SQLite tables, packs and staged blobs the engine keeps) with writeHistory(); these are the SHA-256 of the JSON of
 * what runReads() answered then, bigints as `<digits>n`.
 */
const readsBeforeEngine = "60ca1d0fb7b9e8410393cd8c2caaeb70f0de2d6acc542b0e946123c13d6be79d";

const toJson = (reads: Record<string, unknown>) => `${JSON.stringify(reads, (_, v) => (typeof v === "bigint" ? `${v}n` : v), 1)}\n`;
const digest = (text: string) => createHash("sha256").update(text).digest("hex");

describe("a SQLite file written before the store engine", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads back every series, topic lag, translation, sync, checkpoint and queued row exactly as the old code did", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-old-format-"));
    // A copy: opening a file writes to it (WAL), and the fixture must stay as the old code left it.
    copyFileSync(path.join(__dirname, "fixtures", "store-before-engine.db"), path.join(dir, "old.db"));
    const old = createSqliteStore(path.join(dir, "old.db"));
    const fresh = createSqliteStore(path.join(dir, "fresh.db"));
    await writeHistory(fresh);
    const [fromOld, fromFresh] = [await runReads(old), await runReads(fresh)];
    // The same world written by the engine reads the same (a readable diff when the digest below fails).
    expect(fromOld).toEqual(fromFresh);
    expect(digest(toJson(fromOld))).toBe(readsBeforeEngine);
    expect((fromOld["history orders-5/3 0..10800000"] as unknown[]).length).toBeGreaterThan(10);
    await Promise.all([old.close(), fresh.close()]);
  });
});
