import { defineConfig } from "vitest/config";
import path from "node:path";
import { AlphabeticalSequencer } from "./tests/integration/alphabetical-sequencer.ts";

const alias = { "@": path.resolve(import.meta.dirname) };

/**
 * Unit files that set or rely on process-wide state: the server's runtime and its configuration (held on globalThis:
 * lib/pipeline/runtime.ts, lib/config), the admin secret and revocations (lib/auth), route handlers reading both; and
 * the files that count which partition objects a reader made, which depends on the slot indexes
 * lib/collector/flow-columns.ts keeps per flow id for the whole process (seen with shared modules: served-flows.test.ts
 * after detect/large-snapshot.test.ts, whose flows of the same id are arrays, found a flow's partitions made). They
 * run isolated, each with its own modules; every other unit file shares its worker's.
 */
const isolatedUnitFiles = [
  "tests/unit/api/**/*.test.ts",
  "tests/unit/auth/**/*.test.ts",
  "tests/unit/collector/cluster-partition-rows.test.ts",
  "tests/unit/collector/flow-builder-cluster-rows.test.ts",
  "tests/unit/collector/flow-partitions-on-demand.test.ts",
  "tests/unit/collector/leader-marks.test.ts",
  "tests/unit/collector/source-tails-rows.test.ts",
  "tests/unit/detect/cluster-columns-rows.test.ts",
  "tests/unit/detect/example-rule.test.ts",
  "tests/unit/pipeline/flow-partitions-unmade.test.ts",
  "tests/unit/pipeline/served-clusters.test.ts",
  "tests/unit/pipeline/served-flows.test.ts",
  "tests/unit/pipeline/served-read-model.test.ts",
  "tests/unit/views/served-metrics.test.ts",
];

export default defineConfig({
  resolve: { alias },
  test: {
    // Vitest reads the sequencer from the root config only (not per project).
    sequence: { sequencer: AlphabeticalSequencer },
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          exclude: isolatedUnitFiles,
          environment: "node",
          // A worker's files share their modules instead of importing the whole graph again for each file: importing
          // was half the stage's time (the unit stage took 177 s instead of 636 s at a load average of 8–11).
          isolate: false,
          // 30 s, not vitest's 5 s: the random differential tests take 1–3 s alone and passed 5 s on a machine loaded
          // by other work (cluster-partition-rows, 5.7 s at a load average of 9–11); a test that hangs still fails.
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        // The unit files that need modules of their own (see isolatedUnitFiles), each imported afresh as vitest does by default.
        test: { name: "unit-isolated", include: isolatedUnitFiles, environment: "node", testTimeout: 30_000 },
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
