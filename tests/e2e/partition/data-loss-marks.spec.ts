import { expect, test } from "@playwright/test";
import { runPurge } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { sandboxFlowPath, waitForHydration } from "../flow/wait-hydrated";
import { saveDocsImage, saveScreenshot, timePageLoad } from "../support/screenshots";

test("a purge at the source shows on the partition chart as a red data-loss area with the exact record count", async ({ page }) => {
  test.setTimeout(300_000);
  // Real data loss: MM2 paused, records produced then deleted at the source, MM2 resumed.
  const report = await runPurge(readSandboxState(), { topic: "payments", partition: 1, records: 300 });
  const lost = Number(report.lostCount).toLocaleString("en-US");
  const from = Number(report.firstLostOffset).toLocaleString("en-US");
  const to = Number(report.lastLostOffset).toLocaleString("en-US");

  await timePageLoad(page, `${sandboxFlowPath}/topics/payments/1?range=15m&refresh=5`);
  await expect(page.getByRole("heading", { name: "Partition payments-1" })).toBeVisible({ timeout: 60_000 });
  // The page refreshes itself every 5 s; the gap appears once a cycle has seen the new log start.
  await expect(page.getByTestId("mark-list")).toContainText(`Data loss: ${lost} records`, { timeout: 90_000 });
  await expect(page.getByTestId("mark-list")).toContainText(`offsets ${from}–${to}`);
  // On a reused sandbox an earlier purge may still be in the 15-minute window: at least this one is marked.
  await expect(page.getByTestId("mark-summary")).toContainText(/\d+ data-loss gaps?/);
  // The chart re-renders on every auto-refresh: poll until Recharts has drawn the area.
  await expect.poll(() => page.locator('[data-testid="offsets-chart"] .recharts-reference-area').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId("offsets-chart")).toContainText(`data loss: ${lost} records`);
  await waitForHydration(page);
  await saveScreenshot(page, "partition-data-loss");
  await saveDocsImage(page, "partition-after-loss");
});

test("the partition page shows current values and the newest offset syncs, newest first", async ({ page }) => {
  await timePageLoad(page, `${sandboxFlowPath}/topics/orders/0`);
  await expect(page.getByTestId("current-values")).toContainText("Committed position", { timeout: 60_000 });
  const syncRows = page.getByTestId("sync-table").locator("tbody tr");
  await expect(syncRows.first()).toBeVisible({ timeout: 60_000 });
  expect(await syncRows.count()).toBeLessThanOrEqual(64);
  const numbers = await syncRows.locator("td:first-child").allInnerTexts();
  const indexes = numbers.map((n) => Number(n.replace(/,/g, "")));
  expect(indexes).toEqual([...indexes].sort((a, b) => b - a));
});
