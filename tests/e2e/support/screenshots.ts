import type { Page } from "@playwright/test";
import path from "node:path";
import { waitForHydration } from "../flow/wait-hydrated";
import { expectNoSidewaysScroll } from "./overflow";

/** Saves a full-page screenshot with the test results (test-results/screenshots/<name>.png). */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const file = path.join("test-results", "screenshots", `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Writes one of the README's pictures, `docs/images/<name>.png`: the first screen of the page at 1280 × 900, so the
 * committed image shows what an operator sees on opening it. Every e2e run takes them again from the real stack.
 */
export async function saveDocsImage(page: Page, name: string): Promise<string> {
  const file = path.join("docs", "images", `${name}.png`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: false, animations: "disabled" });
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

/**
 * Full-page screenshots at 1280 px and at phone width (390 px), `<name>-1280.png` and `<name>-390.png`; at 390 px the
 * page must not scroll sideways. Leaves the viewport at 1280 px and the page hydrated.
 */
export async function saveAtDesktopAndPhone(page: Page, name: string): Promise<void> {
  // Loaded again at each width, as a phone or a desktop opens it (charts size themselves on load).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload({ waitUntil: "load" });
  await expectNoSidewaysScroll(page, name);
  await saveScreenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload({ waitUntil: "load" });
  await saveScreenshot(page, `${name}-1280`);
  // The spec goes on clicking on this page: its buttons act only once React has hydrated it again.
  await waitForHydration(page);
}
