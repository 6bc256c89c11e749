import { expect, test, type Locator, type Page } from "@playwright/test";
import { sandboxFlowPath, waitForHydration } from "../flow/wait-hydrated";
import { saveScreenshot, timePageLoad } from "../support/screenshots";

/**
 * Every Recharts chart of every page draws: an SVG surface with a real size, and each series a path through at
 * least two real points (or its dots). Charts once rendered nothing when their box had no height, and no test saw.
 * Samples are recorded once per poll cycle: each check reloads until the page has two of them.
 */

/** Series of a chart: line paths (exactly `count`), area paths (its fill and outline: at least `count`), or a line's dots (at least 2). */
type Series = { kind: "line" | "area" | "dots"; count: number };

const seriesSelector: Record<Series["kind"], string> = {
  line: "g.recharts-line path.recharts-curve",
  area: "g.recharts-area path[d]",
  dots: "g.recharts-line-dots circle",
};

/** The number of x,y points a path's `d` attribute passes through. */
function countPoints(d: string): number {
  return Math.floor((d.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/g) ?? []).length / 2);
}

/** Reloads until `chart` has every series (one reload per poll cycle at most), then checks size and points. */
async function expectChartDraws(page: Page, chart: Locator, series: Series[]): Promise<void> {
  const first = series[0]!;
  await expect
    .poll(async () => {
      const n = await chart.locator(seriesSelector[first.kind]).count();
      if (n < first.count) await page.reload();
      return n >= first.count;
    }, { timeout: 150_000, intervals: [3_000] })
    .toBe(true);
  const box = await chart.locator("svg.recharts-surface").first().boundingBox();
  expect(box).not.toBeNull();
  expect(box!.width).toBeGreaterThan(20);
  expect(box!.height).toBeGreaterThan(20);
  for (const s of series) {
    const found = chart.locator(seriesSelector[s.kind]);
    if (s.kind === "dots") {
      expect(await found.count()).toBeGreaterThanOrEqual(2);
      continue;
    }
    if (s.kind === "line") expect(await found.count()).toBe(s.count);
    else expect(await found.count()).toBeGreaterThanOrEqual(s.count);
    for (const path of await found.all()) expect(countPoints((await path.getAttribute("d")) ?? "")).toBeGreaterThanOrEqual(2);
  }
}

// A sparkline needs two minutes of history and a sync chart two offset syncs (MM2 writes one per 100 records).
test.describe.configure({ timeout: 360_000 });

/** The x axis's tick labels of a chart (Recharts 3 draws them in a layer of their own, not inside the axis). */
async function readTickLabels(chart: Locator): Promise<string[]> {
  const ticks = chart.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
  // The chart draws on the client after hydration: wait for its first label rather than read an empty axis.
  await expect(ticks.first()).toBeAttached({ timeout: 30_000 });
  return ticks.allTextContents();
}

test("the group page's re-read chart draws its three series (screenshots: the group page and the overview)", async ({ page }) => {
  await timePageLoad(page, `${sandboxFlowPath}/groups/gapwatch-slow`);
  await expect(page).toHaveTitle("Group gapwatch-slow · east→west · Gapwatch", { timeout: 60_000 });
  await expectChartDraws(page, page.getByTestId("reread-chart"), [{ kind: "line", count: 3 }]);
  const ticks = await readTickLabels(page.getByTestId("reread-chart"));
  expect(new Set(ticks).size).toBe(ticks.length);
  await waitForHydration(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await saveScreenshot(page, `charts-group-${width}`);
  }
  await page.goto("/");
  await expect(page.getByTestId("flow-east->west").getByTestId("flow-health")).toBeVisible();
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await saveScreenshot(page, `overview-${width}`);
  }
});

test("the flow page draws a lag sparkline per topic and the flow's re-reads on failover", async ({ page }) => {
  await timePageLoad(page, `${sandboxFlowPath}?range=15m`);
  await expect(page).toHaveTitle("Flow east→west · Gapwatch");
  for (const topic of ["orders", "payments", "clicks"]) {
    await expectChartDraws(page, page.getByTestId(`topic-row-${topic}`).getByTestId("lag-sparkline"), [{ kind: "line", count: 1 }]);
  }
  const rereads = page.getByTestId("flow-reread-chart");
  await expectChartDraws(page, rereads, [{ kind: "line", count: 2 }]);
  await expect(page.getByTestId("flow-rereads")).toContainText("Replayed on failover (all groups)");
  // 15 minutes: seconds on the axis, every label different.
  const ticks = await readTickLabels(rereads);
  for (const t of ticks) expect(t).toMatch(/^\d\d:\d\d:\d\d$/);
  expect(new Set(ticks).size).toBe(ticks.length);
  // The health pill is the configured thresholds' verdict, labelled for what it measures.
  await expect(page.getByTestId("flow-summary").getByTestId("flow-health")).toContainText("Replication");
  await waitForHydration(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await saveScreenshot(page, `charts-flow-${width}`);
  }
});

test("the partition page draws offsets (4 series), lag and offset syncs, its axis labelled for the range", async ({ page }) => {
  await timePageLoad(page, `${sandboxFlowPath}/topics/orders/0?range=15m`);
  await expect(page).toHaveTitle("orders[0] · east→west · Gapwatch");
  await expectChartDraws(page, page.getByTestId("offsets-chart"), [{ kind: "line", count: 4 }]);
  await expectChartDraws(page, page.getByTestId("lag-chart"), [{ kind: "area", count: 1 }]);
  await expectChartDraws(page, page.getByTestId("sync-chart"), [{ kind: "line", count: 1 }, { kind: "dots", count: 2 }]);
  const ticks = await readTickLabels(page.getByTestId("offsets-chart"));
  for (const t of ticks) expect(t).toMatch(/^\d\d:\d\d:\d\d$/);
  expect(new Set(ticks).size).toBe(ticks.length);
  await waitForHydration(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await saveScreenshot(page, `charts-partition-${width}`);
  }
  await page.goto(`${sandboxFlowPath}/topics/orders/0?range=24h`);
  const dayTicks = await readTickLabels(page.getByTestId("offsets-chart"));
  expect(new Set(dayTicks).size).toBe(dayTicks.length);
});

test("unknown flows, topics, partitions and groups answer 404, on pages and in the API", async ({ page, request }) => {
  // The flow exists once the first cycle ran; before that nothing is known to be missing.
  await expect.poll(async () => (await request.get(`/api/flows/${encodeURIComponent("east->west")}/topics`)).status(), { timeout: 60_000 }).toBe(200);
  const pages: [string, string, string][] = [
    ["/flows/nowhere-%3Ewest", "flow-not-found", 'No MirrorMaker 2 flow "nowhere->west"'],
    [`${sandboxFlowPath}/topics/ledger`, "topic-not-found", 'Flow east->west does not replicate a topic "ledger"'],
    [`${sandboxFlowPath}/topics/orders/99`, "partition-not-found", 'Topic orders has no replicated partition "99"'],
    [`${sandboxFlowPath}/groups/nobody`, "group-not-found", 'MM2 does not checkpoint a group "nobody" on east->west'],
  ];
  for (const [url, testId, text] of pages) {
    const response = await page.goto(url);
    expect(response?.status(), url).toBe(404);
    await expect(page.getByTestId(testId)).toContainText(text);
  }
  await expect(page.getByTestId("group-not-found").getByRole("link")).toHaveAttribute("href", `${sandboxFlowPath}/groups`);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await saveScreenshot(page, `not-found-${width}`);
  }
  const api: [string, number, string][] = [
    [`/api/flows/${encodeURIComponent("nowhere->west")}`, 404, 'no MM2 flow "nowhere->west"'],
    [`/api/flows/${encodeURIComponent("east->west")}/partitions/orders/99/history`, 404, 'topic orders of flow east->west has no replicated partition "99"'],
    [`/api/flows/${encodeURIComponent("east->west")}/partitions/ledger/0/history`, 404, 'flow east->west replicates no topic "ledger"'],
    [`/api/flows/${encodeURIComponent("east->west")}/groups/nobody`, 404, 'no checkpointed consumer group "nobody"'],
    [`/api/flows/${encodeURIComponent("east->west")}/partitions/orders/x/history`, 400, 'partition must be a non-negative integer, got "x"'],
  ];
  for (const [url, status, message] of api) {
    const response = await request.get(url);
    expect(response.status(), url).toBe(status);
    expect(((await response.json()) as { error: string }).error).toContain(message);
  }
});
