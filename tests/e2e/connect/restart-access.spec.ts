import { type Browser, expect, test } from "@playwright/test";
import { runFailTask, runRecover } from "@/lib/sandbox/scenarios";
import { readSandboxState } from "@/lib/sandbox/state";
import { waitForHydration } from "../flow/wait-hydrated";
import { saveAtDesktopAndPhone, saveScreenshot, timePageLoad } from "../support/screenshots";
import { readTopicsOnlyUrl } from "../support/topics-only-app";
import { signIn, signOut } from "./session";

const source = "mm2-east-west-source";

async function firstConnectCluster(baseURL: string | undefined): Promise<string> {
  const response = await fetch(new URL("/api/connect", baseURL));
  const body = (await response.json()) as { connect: { name: string }[] };
  return body.connect[0]!.name;
}

/**
 * The same FAILED task on the dashboard that reads Connect from its internal topics (no REST API): no restart button,
 * the reason and the Strimzi annotation to use instead.
 */
async function expectRestartUnavailableOnTopicsOnly(browser: Browser): Promise<void> {
  const context = await browser.newContext({ baseURL: readTopicsOnlyUrl() });
  try {
    const page = await context.newPage();
    await page.goto("/connect?refresh=5");
    const task = page.locator(`[data-testid^="task-${source}-"]`).filter({ hasText: "FAILED" }).first();
    await expect(task).toBeVisible({ timeout: 60_000 });
    await expect(task).toContainText("Root cause:");
    await expect(task).toContainText(`is read from its internal topics (no url in its config)`);
    // The annotation names this very task, ready to copy.
    const taskId = (await task.getAttribute("data-testid"))!.slice(`task-${source}-`.length);
    await expect(task).toContainText(`kubectl annotate KafkaMirrorMaker2 <name> "strimzi.io/restart-connector-task=${source}:${taskId}"`);
    await expect(task.getByRole("button", { name: /Restart failed task/ })).toHaveCount(0);
    await saveAtDesktopAndPhone(page, "connect-internal-topics-failed-task");
  } finally {
    await context.close();
  }
}

test("the Connect page shows connectors and tasks with states, and no restart button when signed out", async ({ page }) => {
  await timePageLoad(page, "/connect");
  await expect(page.getByTestId(`connector-${source}`)).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId(`task-${source}-0`)).toBeVisible();
  await expect(page.getByTestId(`task-${source}-0`).locator('[data-slot="pill"]')).toHaveText(/RUNNING|FAILED|PAUSED|UNASSIGNED|RESTARTING/);
  await expect(page.getByTestId("session-status")).toContainText("Sign in to act");
  await expect(page.getByRole("button", { name: /Restart failed task/ })).toHaveCount(0);
  await saveScreenshot(page, "connect-signed-out");
});

test("the restart API answers 401 without a session and 403 for a foreign Origin or a non-JSON body", async ({ request, baseURL }) => {
  const cluster = await firstConnectCluster(baseURL);
  const url = `/api/connect/${encodeURIComponent(cluster)}/connectors/${source}/tasks/0/restart`;
  const origin = new URL(baseURL ?? "http://localhost:3000").origin;

  const noSession = await request.post(url, { headers: { origin, "content-type": "application/json" }, data: {} });
  expect(noSession.status()).toBe(401);
  expect((await noSession.json()) as { code: string }).toMatchObject({ code: "GW_UNAUTHORIZED" });

  const foreign = await request.post(url, { headers: { origin: "https://evil.example", "content-type": "application/json" }, data: {} });
  expect(foreign.status()).toBe(403);
  expect((await foreign.json()) as { code: string }).toMatchObject({ code: "GW_FORBIDDEN" });

  const formPost = await request.post(url, { headers: { origin }, form: { x: "1" } });
  expect(formPost.status()).toBe(403);

  const wrongSecret = await request.post("/api/session", { headers: { origin, "content-type": "application/json" }, data: { secret: "not-the-admin-secret" } });
  expect(wrongSecret.status()).toBe(401);
});

test("signing in with the admin secret makes the restart button appear for a FAILED task, and restarting asks first", async ({ page, browser }) => {
  test.setTimeout(360_000);
  const state = readSandboxState();
  await runFailTask(state);
  try {
    await signIn(page);
    await page.goto("/connect?refresh=5");
    const task = page.locator(`[data-testid^="task-${source}-"]`).filter({ hasText: "FAILED" }).first();
    await expect(task).toBeVisible({ timeout: 60_000 });
    await expect(task).toContainText("Root cause:");
    await waitForHydration(page);
    const button = task.getByRole("button", { name: /Restart failed task/ });
    await expect(button).toBeVisible();
    await saveScreenshot(page, "connect-signed-in-failed-task");
    await expectRestartUnavailableOnTopicsOnly(browser);

    await button.click();
    await expect(task.getByRole("button", { name: "Confirm restart" })).toBeVisible();
    await task.getByRole("button", { name: "Cancel" }).click();
    await expect(task.getByRole("button", { name: "Confirm restart" })).toHaveCount(0);

    await task.getByRole("button", { name: /Restart failed task/ }).click();
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes("/restart") && r.request().method() === "POST"), task.getByRole("button", { name: "Confirm restart" }).click()]);
    expect(response.status()).toBe(202);

    await signOut(page);
    await expect(page.getByRole("button", { name: /Restart failed task/ })).toHaveCount(0);
  } finally {
    await runRecover(state);
  }
});
