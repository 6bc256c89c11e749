import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { saveScreenshot, timePageLoad } from "../support/screenshots";

const flow = encodeURIComponent("east->west");
/** The line kafka-consumer-groups' --from-file parser accepts for a single --group: topic,partition,offset. */
const csvLine = /^[a-zA-Z0-9._-]+,\d+,\d+$/;

test("the groups page lists the workload's groups, and a group's page offers both failover CSVs in Kafka's format", async ({ page, request }) => {
  await timePageLoad(page, `/flows/${flow}/groups`);
  // Right after start-up the first cycles may still be running: the page refreshes itself.
  await expect(page.getByTestId("groups-table")).toBeVisible({ timeout: 90_000 });
  const slow = page.getByTestId("group-gapwatch-slow");
  await expect(slow).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId("flow-replay-total")).toContainText("Records replayed if every group failed over now");
  await saveScreenshot(page, "groups");

  // Both plans have rows once MM2 has written offset syncs for the workload topics.
  for (const mode of ["mm2", "precise"]) {
    await expect
      .poll(async () => (await request.get(`/api/flows/${flow}/groups/gapwatch-slow/failover.csv?mode=${mode}`)).status(), { timeout: 120_000 })
      .toBe(200);
  }

  await slow.getByRole("link", { name: "gapwatch-slow" }).click();
  await expect(page).toHaveURL(/\/flows\/east-%3Ewest\/groups\/gapwatch-slow/);
  await expect(page.getByTestId("partition-table")).toBeVisible();
  await expect(page.getByTestId("group-summary")).toContainText("If gapwatch-slow failed over to west now");
  await expect(page.getByTestId("plan-precise")).toBeVisible();
  // The re-read chart draws: a surface with its three series as real paths (it once had no height
  // and Recharts drew nothing). Samples are recorded once per cycle: reload until two exist.
  const rereadLines = page.locator('[data-testid="reread-chart"] svg.recharts-surface .recharts-line path.recharts-curve');
  await expect
    .poll(async () => {
      if ((await rereadLines.count()) === 0) await page.reload();
      return rereadLines.count();
    }, { timeout: 60_000, intervals: [3000] })
    .toBe(3);
  // Each path joins at least two real points (M x,y then a line or curve segment).
  for (const line of await rereadLines.all()) expect((await line.getAttribute("d")) ?? "").toMatch(/^M-?[\d.]+,-?[\d.]+[LC]/);

  for (const mode of ["mm2", "precise"]) {
    const link = page.getByTestId("group-summary").getByTestId(`download-${mode}`);
    await expect(link).toHaveAttribute("href", `/api/flows/${flow}/groups/gapwatch-slow/failover.csv?mode=${mode}`);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(`gapwatch-slow-${mode}-failover.csv`);
    const body = readFileSync((await download.path())!, "utf8");
    const lines = body.split("\n").filter((l, i, all) => !(l === "" && i === all.length - 1));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(csvLine);
    // Every row names a replicated (renamed) topic on the target.
    for (const line of lines) expect(line.startsWith("east.")).toBe(true);
  }

  // The partition list is paged on the server: a search narrows it to one topic, and says how many match.
  const nav = page.getByTestId("partition-page-nav");
  await nav.getByRole("searchbox").fill("orders");
  await nav.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(/[?&]q=orders/);
  const names = await page.getByTestId("partition-table").locator("tbody tr td:first-child").allInnerTexts();
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) expect(name).toMatch(/^orders\/\d+/);
  await expect(page.getByTestId("partition-page-nav")).toContainText(`${names.length} of ${names.length} partitions matching “orders”`);

  const bad = await request.get(`/api/flows/${flow}/groups/gapwatch-slow/failover.csv?mode=latest`);
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { error: string }).error).toContain('"mm2", "precise"');
  await saveScreenshot(page, "group-page");
});
