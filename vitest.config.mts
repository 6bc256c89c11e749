import { defineConfig } from "vitest/config";
import path from "node:path";
import { AlphabeticalSequencer } from "./tests/integration/alphabetical-sequencer.ts";

const alias = { "@": path.resolve(import.meta.dirname) };

export default defineConfig({
  resolve: { alias },
  test: {
    // Vitest reads the sequencer from the root config only (not per project).
    sequence: { sequencer: AlphabeticalSequencer },
    projects: [
      {
        resolve: { alias },
        // 30 s, not vitest's 5 s: the random differential tests take 1–3 s alone and passed 5 s on a machine loaded
        // by other work (cluster-partition-rows, 5.7 s at a load average of 9–11); a test that hangs still fails.
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node", testTimeout: 30_000 },
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
          // The Helm chart rendered by the real helm CLI (scripts/helm/helm-cli.ts builds it when missing).
          name: "helm",
          include: ["tests/helm/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 900_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
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
          // The OCI image run with podman against a sandbox of its own (npm test's `image` stage, scripts/test.ts).
          name: "image",
          include: ["tests/image/**/*.test.ts"],
          environment: "node",
          fileParallelism: false,
          testTimeout: 600_000,
          // The first build of the image (next build, the root filesystem, Node.js) in the first file's beforeAll.
          hookTimeout: 1_500_000,
          globalSetup: ["tests/integration/global-setup.ts"],
        },
      },
    ],
  },
});
