import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe } from "vitest";
import { createSqliteStore } from "@/lib/store";
import { describeStoreContract } from "../../store/contract";

/** The Store contract against SQLite: a new file per case (its folder created by the store). */
describe("SQLite store contract", () => {
  let dir = "";
  describeStoreContract({
    fresh: async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-store-"));
    },
    open: () => createSqliteStore(path.join(dir, "nested", "gapwatch.db")),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });
});
