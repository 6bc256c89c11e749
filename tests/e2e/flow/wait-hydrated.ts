import type { Page } from "@playwright/test";

/**
 * Waits until React has hydrated the page (the header's theme button carries React's fiber), so
 * client-side controls (search, sort, restart buttons) react to input. Under `next dev` a page
 * can take a few seconds to hydrate; under `next start` this returns at once.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const button = document.querySelector("header button");
    return button !== null && Object.keys(button).some((k) => k.startsWith("__reactFiber"));
  }, null, { timeout: 60_000 });
}

/** The sandbox flow every e2e spec uses, as its URL path segment. */
export const sandboxFlowPath = "/flows/east-%3Ewest";
