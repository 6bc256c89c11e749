import { expect, test } from "@playwright/test";
import { saveScreenshot, timePageLoad } from "../support/screenshots";
import { sandboxFlowPath, waitForHydration } from "./wait-hydrated";

test("the flow page lists its topics and links down to a partition page with an offsets chart in two clicks", async ({ page }) => {
  await timePageLoad(page, sandboxFlowPath);
  // Right after start-up the first cycle may still run: the page refreshes itself every 10 s.
  await expect(page.getByTestId("topic-row-orders")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("topic-row-payments")).toBeVisible();
  await expect(page.getByTestId("topic-row-clicks")).toBeVisible();
  await expect(page.getByTestId("flow-summary")).toContainText("Heartbeat latency");
  await expect(page.getByRole("link", { name: "Consumer groups & failover" })).toHaveAttribute("href", `${sandboxFlowPath}/groups`);
  await waitForHydration(page);
  await saveScreenshot(page, "flow-page");

  // Click 1: the topic.
  await page.getByTestId("topic-row-orders").getByRole("link", { name: "orders" }).click();
  await expect(page).toHaveURL(/\/flows\/east-%3Ewest\/topics\/orders/);
  await expect(page.getByRole("heading", { name: "Topic orders" })).toBeVisible();
  const row = page.locator('[data-testid="partition-row"][data-partition="0"]');
  await expect(row).toBeVisible();
  await saveScreenshot(page, "topic-page");

  // Click 2: partition 0.
  await row.getByRole("link", { name: "Partition 0" }).click();
  await expect(page).toHaveURL(/\/topics\/orders\/0/);
  await expect(page.getByRole("heading", { name: "Partition orders-0" })).toBeVisible();
  // The chart needs two samples; early in a run the page shows "not enough samples" and refreshes itself.
  await expect(page.locator('[data-testid="offsets-chart"] svg.recharts-surface').first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("current-values")).toContainText("MM2 position");
  await expect(page.getByTestId("offsets-chart")).toContainText("Source log end");
  await saveScreenshot(page, "partition-page");
});

test("the flow page's topic controls search, hide internal topics, and keep the range in the URL", async ({ page }) => {
  await timePageLoad(page, `${sandboxFlowPath}?range=15m`);
  await expect(page.getByTestId("topic-row-orders")).toBeVisible({ timeout: 60_000 });
  await waitForHydration(page);
  await expect(page.getByRole("button", { name: "15 min" })).toHaveAttribute("aria-pressed", "true");

  // heartbeats is internal: hidden by default, shown when the box is unticked.
  await expect(page.getByTestId("topic-row-heartbeats")).toHaveCount(0);
  await page.getByLabel("Hide internal topics (heartbeats, *.internal)").uncheck();
  await expect(page.getByTestId("topic-row-heartbeats")).toBeVisible();

  await page.getByLabel("Search topics").fill("pay");
  await expect(page.getByTestId("topic-row-payments")).toBeVisible();
  await expect(page.getByTestId("topic-row-orders")).toHaveCount(0);

  await page.getByRole("button", { name: "6 h" }).click();
  await expect(page).toHaveURL(/range=6h/);
  await expect(page.getByRole("button", { name: "6 h" })).toHaveAttribute("aria-pressed", "true");
});

test("an unknown flow says so and lists the flows that exist", async ({ page }) => {
  await timePageLoad(page, "/flows/nowhere-%3Ewest");
  await expect(page.getByTestId("flow-not-found")).toContainText('No MirrorMaker 2 flow "nowhere->west"', { timeout: 60_000 });
  await expect(page.getByTestId("flow-not-found").getByRole("link", { name: "east->west" })).toBeVisible();
});
