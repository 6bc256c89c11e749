import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { createSqliteStore, type Store } from "@/lib/store";

/**
 * One SQLite file per test in a fresh temporary directory: `open` opens a store on it (a restart opens it again after
 * `close`), and the stores still open are closed and the directory removed after each test.
 */
export function createTempSqliteStores(prefix: string): { open(): Store; close(store: Store): Promise<void> } {
  let dir = "";
  let open: Store[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    open = [];
  });
  afterEach(async () => {
    for (const store of open) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    open() {
      const store = createSqliteStore(path.join(dir, "gapwatch.db"));
      open.push(store);
      return store;
    },
    async close(store) {
      open = open.filter((s) => s !== store);
      await store.close();
    },
  };
}
