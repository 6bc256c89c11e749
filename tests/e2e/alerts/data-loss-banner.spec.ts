import { expect, test } from "@playwright/test";
import { runPurge } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { signIn } from "../connect/session";
import { waitForHydration } from "../flow/wait-hydrated";
import { saveScreenshot } from "../support/screenshots";

test("after a purge the banner shows DATA_LOSS with the exact count within a poll interval, links to the evidence, and acknowledging hides it", async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto("/");
  const report = await runPurge(readSandboxState(), { topic: "clicks", partition: 7, records: 400 });
  const purgedAt = Date.now();
  const lost = Number(report.lostCount).toLocaleString("en-US");
  const line = page.getByTestId("banner-DATA_LOSS").filter({ hasText: `of clicks/7` });
  // The e2e stack polls every 3 s and the overview refreshes every 5 s (URL control).
  await page.goto("/?refresh=5");
  await expect(line).toBeVisible({ timeout: 30_000 });
  process.stdout.write(`[e2e] DATA_LOSS banner visible ${((Date.now() - purgedAt) / 1000).toFixed(1)} s after the purge\n`);
  await expect(line).toContainText(`${lost} records of clicks/7 were deleted at east before MM2 copied them`);
  await saveScreenshot(page, "banner-data-loss");

  await line.getByRole("link", { name: "Evidence" }).click();
  await expect(page).toHaveURL(/\/flows\/east-%3Ewest\/topics\/clicks\/7/);
  await expect(page.getByTestId("banner-DATA_LOSS").filter({ hasText: "of clicks/7" })).toBeVisible();

  // Without a session there is no Acknowledge button; signed in, acknowledging removes the line.
  await expect(line.getByRole("button", { name: "Acknowledge" })).toHaveCount(0);
  await signIn(page);
  await page.goto("/alerts?type=DATA_LOSS");
  await waitForHydration(page);
  const banner = page.getByTestId("banner-DATA_LOSS").filter({ hasText: "of clicks/7" });
  await banner.getByRole("button", { name: "Acknowledge" }).click();
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
  await expect(page.locator("article", { hasText: "of clicks/7" }).first()).toContainText("acknowledged by admin");
  await saveScreenshot(page, "alerts-page");
});
