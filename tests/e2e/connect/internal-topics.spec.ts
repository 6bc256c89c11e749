import { expect, test, type Browser, type Page } from "@playwright/test";
import { connectorNames } from "@/lib/sandbox/mm2-connectors";
import { waitForHydration } from "../flow/wait-hydrated";
import { saveAtDesktopAndPhone } from "../support/screenshots";
import { readTopicsOnlyUrl, topicsOnlyConnect } from "../support/topics-only-app";
import { signIn } from "./session";

/**
 * The second dashboard of the run (tests/e2e/support/global-setup.ts): Connect given only as its internal topics, as
 * behind Strimzi's NetworkPolicy, and loss events held 5 s instead of an hour.
 */
const source = connectorNames("east", "west").source;

async function openTopicsOnly(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: readTopicsOnlyUrl() });
  return context.newPage();
}

test("Connect read from its internal topics: the pill names the topics, MM2 runs, and restarting answers 409 with the Strimzi annotation", async ({ browser }) => {
  const page = await openTopicsOnly(browser);
  await page.goto("/connect");
  const card = page.getByTestId(`connect-${topicsOnlyConnect}`);
  await expect(card).toBeVisible({ timeout: 60_000 });
  await expect(card.getByText("Read from internal topics")).toBeVisible();
  await expect(card).toContainText("west: connect-configs, connect-status, connect-offsets");
  await expect(card.getByText("Reachable")).toBeVisible();
  await expect(page.getByTestId(`connector-${source}`).locator('[data-slot="pill"]').first()).toHaveText("RUNNING");
  await saveAtDesktopAndPhone(page, "connect-internal-topics");

  // Signed in, a restart is still refused: there is no REST API to ask; the answer says what to do instead.
  await signIn(page);
  const origin = new URL(readTopicsOnlyUrl()).origin;
  const url = `/api/connect/${topicsOnlyConnect}/connectors/${source}/tasks/0/restart`;
  const refused = await page.request.post(url, { headers: { origin, "content-type": "application/json" }, data: {} });
  expect(refused.status()).toBe(409);
  const body = (await refused.json()) as { error: string };
  expect(body.error).toContain(`kubectl annotate KafkaMirrorMaker2 <name> "strimzi.io/restart-connector-task=${source}:0"`);
  await page.context().close();
});

test("a loss that stopped growing stays in the banner and the alert list, says so, and leaves once acknowledged", async ({ browser }) => {
  test.setTimeout(300_000);
  const page = await openTopicsOnly(browser);
  // alerts/data-loss-banner.spec.ts (project "dashboard", which this project depends on) purged clicks/7 while this
  // dashboard ran. Held 5 s here, then absent for the alert service's 60 s: resolved, i.e. stopped growing.
  await page.goto("/?refresh=5");
  const line = page.getByTestId("banner-DATA_LOSS").filter({ hasText: "of clicks/7" });
  await expect(line).toContainText("stopped growing, not acknowledged", { timeout: 180_000 });
  await expect(line).toContainText(/[\d,]+ records of clicks\/7 were deleted at east before MM2 copied them/);
  await expect(line.getByRole("link", { name: "Evidence" })).toBeVisible();
  await saveAtDesktopAndPhone(page, "banner-stopped-growing");

  await signIn(page);
  await page.goto("/alerts?type=DATA_LOSS");
  await waitForHydration(page);
  const card = page.getByTestId("alert-DATA_LOSS").filter({ hasText: "of clicks/7" }).first();
  await expect(card).toContainText("stopped growing");
  await expect(card.getByTestId("alert-loss-meaning")).toHaveText(
    "stopped growing: no new loss seen; the lost records stay lost until restored by hand — stays open until acknowledged",
  );
  await saveAtDesktopAndPhone(page, "alerts-stopped-growing");

  const banner = page.getByTestId("banner-DATA_LOSS").filter({ hasText: "of clicks/7" });
  await banner.getByRole("button", { name: "Acknowledge" }).click();
  await expect(banner).toHaveCount(0, { timeout: 30_000 });
  await expect(card).toContainText("acknowledged by admin");
  // The timeline says so too: the loss stopped growing, it did not "resolve".
  await expect(page.getByRole("listitem").filter({ hasText: /^[\d-]+ [\d:]+DATA_LOSS stopped growing: [\d,]+ records of clicks\/7/ }).first()).toBeVisible();
  await expect(card.getByTestId("alert-loss-meaning")).toHaveText("stopped growing: no new loss seen; the lost records stay lost until restored by hand");
  const api = await page.request.get("/api/alerts?type=DATA_LOSS&limit=1000");
  const alerts = ((await api.json()) as { alerts: { topic: string | null; partition: number | null; state: string; acknowledged: { by: string } | null }[] }).alerts;
  expect(alerts.filter((a) => a.topic === "clicks" && a.partition === 7)).toEqual([expect.objectContaining({ state: "resolved", acknowledged: expect.objectContaining({ by: "admin" }) })]);
  await page.context().close();
});
