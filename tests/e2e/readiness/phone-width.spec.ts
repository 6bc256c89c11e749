import { expect, type Page, test } from "@playwright/test";
import { sandboxFlowPath } from "../flow/wait-hydrated";
import { measureOverflow } from "../support/overflow";
import { saveScreenshot, timePageLoad } from "../support/screenshots";

/** The pages an operator opens during an incident, each with what must be on screen before it is captured. */
const pages: { name: string; url: string; ready: (page: Page) => Promise<void> }[] = [
  {
    name: "overview",
    url: "/",
    ready: async (page) => {
      await expect(page.getByTestId("flow-east->west").getByTestId("flow-readiness")).toContainText("Failover:", { timeout: 60_000 });
      await expect(page.getByTestId("cluster-east").getByTestId("topic-east-orders")).toBeVisible();
    },
  },
  {
    name: "flow",
    url: sandboxFlowPath,
    ready: async (page) => {
      await expect(page.getByTestId("readiness-panel").getByRole("heading", { name: "Can we fail over now?" })).toBeVisible({ timeout: 60_000 });
      await expect(page.getByTestId("coverage-card")).toBeVisible();
      await expect(page.getByTestId("catch-up")).toBeVisible();
    },
  },
  {
    name: "risks",
    url: "/risks",
    ready: async (page) => {
      await expect(page.getByRole("heading", { name: "Risks" })).toBeVisible();
      await expect(page.getByTestId("risk-row").first()).toBeVisible({ timeout: 60_000 });
    },
  },
];

for (const width of [1440, 390]) {
  test(`overview, flow and risks pages at ${width} px: verdict, coverage, drift, catch-up and risks readable${width === 390 ? ", no sideways scrolling" : ""}`, async ({ page }) => {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const { name, url, ready } of pages) {
      await timePageLoad(page, url);
      await ready(page);
      if (width === 390) {
        // Wide tables scroll inside their card; the page itself never scrolls sideways on a phone.
        const { scrollWidth, wide } = await measureOverflow(page);
        expect(scrollWidth, `${name} at 390 px; elements beyond the viewport: ${JSON.stringify(wide)}`).toBeLessThanOrEqual(390);
      }
      // Named apart from every-chart.spec.ts's overview-<width>.png, which the same run also writes.
      await saveScreenshot(page, `readiness-${name}-${width}`);
    }
  });
}
