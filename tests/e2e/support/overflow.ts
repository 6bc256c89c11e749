import { expect, type Page } from "@playwright/test";

/** The page's width beyond the viewport, and the outermost elements that stick out (named for the failure message). */
export function measureOverflow(page: Page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const inScroller = (e: Element) => {
      for (let p = e.parentElement; p !== null; p = p.parentElement) if (["auto", "scroll"].includes(getComputedStyle(p).overflowX)) return true;
      return false;
    };
    const wide = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > width + 0.5 && !inScroller(e));
    return { scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${String(e.getAttribute("class")).slice(0, 80)}`) };
  });
}

/** Asserts the page does not scroll sideways at its current (phone) width, naming what sticks out if it does. */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  const { scrollWidth, wide } = await measureOverflow(page);
  expect(scrollWidth, `${name} at ${width} px; elements beyond the viewport: ${JSON.stringify(wide)}`).toBeLessThanOrEqual(width);
}
