import type { Page } from "@playwright/test";
import path from "node:path";

/** Saves a full-page screenshot with the test results (test-results/screenshots/<name>.png). */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const file = path.join("test-results", "screenshots", `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Loads a page and returns how long it took until the load event (ms), printed by the run. */
export async function timePageLoad(page: Page, url: string): Promise<number> {
  const started = Date.now();
  await page.goto(url, { waitUntil: "load" });
  const ms = Date.now() - started;
  process.stdout.write(`[e2e] page load ${url}: ${ms} ms\n`);
  return ms;
}
