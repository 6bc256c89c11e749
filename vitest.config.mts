import { configDefaults, defineConfig } from "vitest/config";
import path from "node:path";
import { AlphabeticalSequencer } from "./tests/integration/alphabetical-sequencer.ts";

const alias = { "@": path.resolve(import.meta.dirname) };
const hostileRecordsFile = "tests/integration/real-clusters/hostile-records.test.ts";

export default defineConfig({
  resolve: { alias },
  test: {
    // Vitest reads the sequencer from the root config only (not per project).
    sequence: { sequencer: AlphabeticalSequencer },
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          // The Store contract against a real PostgreSQL (tests/store/global-setup.ts starts one throwaway server).
          name: "store",
          include: ["tests/store/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 90_000,
          globalSetup: ["tests/store/global-setup.ts"],
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          exclude: [...configDefaults.exclude, hostileRecordsFile],
          environment: "node",
          // One shared sandbox: integration files run one after another.
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 300_000,
          globalSetup: ["tests/integration/global-setup.ts"],
        },
      },
      {
        resolve: { alias },
        test: {
          // Garbage into MM2's and Connect's real topics, on a sandbox of its own (`npx vitest run --project hostile`):
          // it stays in MM2's compacted topics for good, and files run after it failed (MM2 emitted no checkpoint for
          // a new group; after worker-restarts, TOPIC_RESET on its own topic), so it never shares the suite's sandbox.
          name: "hostile",
          include: [hostileRecordsFile],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 300_000,
          globalSetup: ["tests/integration/global-setup.ts"],
        },
      },
    ],
  },
});
