import { expect, test } from "@playwright/test";
import { sandboxFlowPath, waitForHydration } from "../flow/wait-hydrated";
import { saveScreenshot, timePageLoad } from "../support/screenshots";

const rows = 5000;

test("the partition table stays virtualized with 5,000 synthetic rows and scrolls to the last one quickly", async ({ page }) => {
  // Auto-refresh off: this measures scrolling, and a refresh landing mid-measurement once left the
  // table blank at the bottom with the wait below spinning until the test timed out (CI, 2026-12-01).
  await timePageLoad(page, `${sandboxFlowPath}/topics/orders?synthetic=${rows}&refresh=off`);
  await expect(page.getByTestId("synthetic-banner")).toContainText("Synthetic rows for testing", { timeout: 60_000 });
  await waitForHydration(page);
  const table = page.getByTestId("partition-table");
  await expect(table).toHaveAttribute("data-total-rows", String(rows));
  await expect(table).toHaveAttribute("aria-rowcount", String(rows + 1));

  // Only the rows in view (plus overscan) are in the DOM.
  const rendered = await page.getByTestId("partition-row").count();
  expect(rendered).toBeGreaterThan(5);
  expect(rendered).toBeLessThan(100);
  await expect(page.locator('[data-partition="4999"]')).toHaveCount(0);

  // Jump to the bottom: time from setting scrollTop until row 4999 is painted. The header hydrates
  // before this table under load: scroll only once React owns the scroll element (CI, 2026-12-01).
  const scroller = page.getByTestId("partition-scroll");
  await scroller.evaluate((el) => new Promise<void>((resolve) => {
    const check = () => (Object.keys(el).some((k) => k.startsWith("__reactFiber")) ? resolve() : setTimeout(check, 50));
    check();
  }));
  const jumpMs = await scroller.evaluate(async (el) => {
    const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    const started = performance.now();
    el.scrollTop = el.scrollHeight;
    while (!document.querySelector('[data-partition="4999"]')) {
      if (performance.now() - started > 10_000) throw new Error(`row 4999 not rendered 10 s after jumping to scrollTop ${el.scrollTop}`);
      await nextFrame();
    }
    await nextFrame();
    return performance.now() - started;
  });
  const last = page.locator('[data-testid="partition-row"][data-partition="4999"]');
  await expect(last).toBeVisible();
  // Row 4999 is deterministic: log start 4999 × 7, log end 10,000 + 4999 × 13.
  await expect(last).toContainText("34,993");
  await expect(last).toContainText("74,987");
  expect(await page.getByTestId("partition-row").count()).toBeLessThan(100);

  // Wheel-like scrolling, one step per frame: 400 px (about 9 rows) per frame, and a fast sweep of the
  // whole list in 100 frames (about 50 rows per frame, every row replaced each frame).
  const sweeps: { stepPx: number; frames: number; medianMs: number; p95Ms: number; worstMs: number; domRows: number }[] = [];
  for (const stepPx of [400, 2200]) {
    sweeps.push(
      await scroller.evaluate(async (el, step) => {
        const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame((t) => resolve(t)));
        el.scrollTop = 0;
        await nextFrame();
        let previous = await nextFrame();
        const frames: number[] = [];
        for (let i = 1; i <= 100; i++) {
          el.scrollTop = i * step;
          const now = await nextFrame();
          frames.push(now - previous);
          previous = now;
        }
        frames.sort((a, b) => a - b);
        return { stepPx: step, frames: frames.length, medianMs: frames[50]!, p95Ms: frames[95]!, worstMs: frames.at(-1)!, domRows: document.querySelectorAll('[data-testid="partition-row"]').length };
      }, stepPx),
    );
  }
  process.stdout.write(`[e2e] 5,000-row table: jump to row 4999 in ${jumpMs.toFixed(1)} ms\n`);
  for (const s of sweeps) {
    process.stdout.write(`[e2e] 5,000-row table: ${s.stepPx} px/frame × ${s.frames}: median frame ${s.medianMs.toFixed(1)} ms, p95 ${s.p95Ms.toFixed(1)} ms, worst ${s.worstMs.toFixed(1)} ms, ${s.domRows} rows in the DOM\n`);
    expect(s.domRows).toBeLessThan(100);
  }
  expect(jumpMs).toBeLessThan(2000);
  await scroller.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await expect(last).toBeVisible();
  await saveScreenshot(page, "topic-synthetic-5000-bottom");
});

test("without ?synthetic the topic page shows only the real partitions, each linking to its partition page", async ({ page }) => {
  await timePageLoad(page, `${sandboxFlowPath}/topics/orders`);
  await expect(page.getByTestId("partition-table")).toHaveAttribute("data-total-rows", "6", { timeout: 60_000 });
  await expect(page.getByTestId("synthetic-banner")).toHaveCount(0);
  await expect(page.locator('[data-partition="5"]').getByRole("link", { name: "Partition 5" })).toHaveAttribute("href", /\/flows\/east-%3Ewest\/topics\/orders\/5/);
});

test("the server's HTML holds only the synthetic rows in view, the real rows' data travel once, as columns; the rest render once hydrated", async ({ page, request }) => {
  // A cookie: rendered for this request, never an answer the response cache stored for another.
  const synthetic = await request.get(`${sandboxFlowPath}/topics/orders?synthetic=200&refresh=off`, { headers: { cookie: "e2e=rows-in-view" } });
  expect(synthetic.status()).toBe(200);
  // 600 px of body at 44 px a row: rows 0–14 are in view.
  expect((await synthetic.text()).match(/data-testid="partition-row"/g) ?? []).toHaveLength(15);
  // The real page is a shell (one per flow, topic-shell.ts): its HTML holds none of the rows' data, its page data
  // (read by the page's client) names each field once for all 6 partitions (topic-row-columns.ts), not once per row.
  const real = await (await request.get(`${sandboxFlowPath}/topics/orders`, { headers: { cookie: "e2e=rows-in-view" } })).text();
  expect(real.match(/sourceLogStart/g) ?? []).toHaveLength(0);
  const data = await (await request.get(`/api${sandboxFlowPath}/topics/orders/page-data`, { headers: { cookie: "e2e=rows-in-view" } })).text();
  expect(data.match(/sourceLogStart/g) ?? []).toHaveLength(1);
  await timePageLoad(page, `${sandboxFlowPath}/topics/orders?synthetic=200&refresh=off`);
  await waitForHydration(page);
  // Hydrated, the table adds 8 rows below the view so that scrolling never shows blank rows.
  await expect(page.getByTestId("partition-row")).toHaveCount(23);
  await expect(page.getByTestId("window-info")).toContainText("rendering rows 0–22");
});
