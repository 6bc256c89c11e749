import { type Browser, chromium } from "@playwright/test";
import { chromiumPath, ensureChromium } from "../chromium";

const chromiumArgs = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

/** Debian's Chromium (installed with apt when missing, as `npm test` does), driven by Playwright (never a downloaded browser). */
export function launchChromium(log: (line: string) => void): Promise<Browser> {
  ensureChromium(log);
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
}

export interface PageLoad {
  name: string;
  path: string;
  /** A plain GET of the page just before (the route's first render on a fresh server is slower), ms. */
  serverFirstGetMs: number;
  /**
   * Navigation timing of the first load in a fresh browser context (no cache), milliseconds. The URL carries a query
   * parameter no page reads, unique per load, so the dashboard's response cache cannot answer it: the page is rendered
   * for this load, as for a viewer of a page nobody else is looking at.
   */
  ttfbMs: number;
  domContentLoadedMs: number;
  loadMs: number;
  /** Bytes of the HTML document as transferred. */
  documentKiB: number;
}

/** Every load's URL differs (see ttfbMs). */
let loads = 0;

/** GETs `path` once (warming the route), then opens it in a fresh context and reads the Navigation Timing entry. */
export async function measureFirstLoad(browser: Browser, base: string, name: string, path: string): Promise<PageLoad> {
  const warm = performance.now();
  await (await fetch(`${base}${path}`, { signal: AbortSignal.timeout(120_000) })).arrayBuffer();
  const serverFirstGetMs = performance.now() - warm;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const unique = `${path}${path.includes("?") ? "&" : "?"}bench-load=${Date.now()}-${++loads}`;
    const response = await page.goto(`${base}${unique}`, { waitUntil: "load", timeout: 120_000 });
    if (!response?.ok()) throw new Error(`${path} answered HTTP ${response?.status() ?? "nothing"}`);
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
      return nav ? { ttfb: nav.responseStart - nav.startTime, dcl: nav.domContentLoadedEventEnd - nav.startTime, load: nav.loadEventEnd - nav.startTime, size: nav.transferSize } : null;
    });
    if (!timing) throw new Error(`no navigation timing entry for ${path}`);
    return { name, path, serverFirstGetMs, ttfbMs: timing.ttfb, domContentLoadedMs: timing.dcl, loadMs: timing.load, documentKiB: timing.size / 1024 };
  } finally {
    await context.close();
  }
}
