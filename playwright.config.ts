import { defineConfig } from "@playwright/test";

/**
 * E2E against the running dashboard + sandbox started by `npm test` (scripts/test.ts), in Debian's
 * Chromium — Playwright never downloads a browser here.
 */
export default defineConfig({
  testDir: "tests/e2e",
  timeout: 180_000,
  expect: { timeout: 30_000 },
  workers: 1,
  reporter: [["list"]],
  outputDir: "test-results/e2e",
  // A second dashboard on the same sandbox, Connect read from its internal topics only (connect/internal-topics.spec.ts).
  globalSetup: "./tests/e2e/support/global-setup.ts",
  use: {
    baseURL: process.env.GAPWATCH_E2E_URL ?? "http://localhost:3000",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
  },
  // Specs that fail and restart MM2's task run last, so the other specs watch a flow that runs
  // undisturbed (a restart re-copies the last record of each partition to the target).
  projects: [
    { name: "dashboard", testIgnore: /connect\// },
    { name: "mm2-restarts", testMatch: /connect\/.*\.spec\.ts/, dependencies: ["dashboard"] },
  ],
});
