import { expect, test, type APIRequestContext } from "@playwright/test";
import { deleteConnector, getConnectors, putConnectorConfig } from "@/lib/connect";
import { connectorNames } from "@/lib/sandbox/mm2-connectors";
import { readSandboxState } from "@/lib/sandbox/state";
import { sandboxFlowPath, waitForHydration } from "../flow/wait-hydrated";
import { saveAtDesktopAndPhone } from "../support/screenshots";
import { signIn } from "./session";

const flowId = "east->west";
const source = connectorNames("east", "west").source;

async function listFlowIds(request: APIRequestContext): Promise<string[]> {
  const body = (await (await request.get("/api/flows")).json()) as { flows: { id: string }[] };
  return body.flows.map((f) => f.id);
}

// Runs last of the run (alphabetically after restart-access): it deletes MM2's source connector, and re-creates it.
test("MM2's source connector deleted: the flow stays with a notice naming it and since when; only an admin retires it", async ({ page, baseURL }) => {
  test.setTimeout(360_000);
  const endpoint = { url: readSandboxState().connect.url, timeoutMs: 15_000 };
  const config = (await getConnectors(endpoint)).find((c) => c.name === source)?.config;
  if (config === undefined) throw new Error(`${source} is not on the sandbox's Connect worker: the e2e sandbox must run MM2 east->west`);
  expect(await listFlowIds(page.request)).toContain(flowId);
  const deletedAt = Date.now();
  await deleteConnector(endpoint, source);
  try {
    expect((await getConnectors(endpoint)).map((c) => c.name)).not.toContain(source);
    await page.goto(`${sandboxFlowPath}?refresh=5`);
    const notice = page.getByTestId("flow-connector-missing");
    await expect(notice).toBeVisible({ timeout: 90_000 });
    await expect(notice).toContainText(`MM2 source connector ${source} is gone from Connect cluster sandbox since`);
    const since = /since (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/.exec((await notice.textContent()) ?? "")?.[1];
    expect(since, "the notice says since when, in UTC").toBeDefined();
    const sinceMs = Date.parse(`${since!.replace(" ", "T")}Z`);
    // Seconds in the text; the first cycle after the DELETE (the e2e stack polls every 3 s).
    expect(sinceMs).toBeGreaterThanOrEqual(Math.floor(deletedAt / 1000) * 1000);
    expect(sinceMs).toBeLessThan(Date.now());
    await expect(notice).toContainText("Replication stopped: MM2's source connector is gone");
    await expect(notice).toContainText("Next: re-create the connector with the same name");
    // The notice shows from the first cycle; MM2_CONNECTOR_MISSING itself fires after thresholds.notRunningAfterMs
    // (120 s), longer than this spec waits. Signed out: no Retire button, a link to sign in, and the API refuses.
    await expect(notice.getByRole("button", { name: "Retire flow" })).toHaveCount(0);
    await expect(notice.getByRole("link", { name: "Sign in to retire it" })).toBeVisible();
    await saveAtDesktopAndPhone(page, "flow-connector-missing");

    const origin = new URL(baseURL ?? "http://localhost:3000").origin;
    const retireUrl = `/api/flows/${encodeURIComponent(flowId)}/retire`;
    const noSession = await page.request.post(retireUrl, { headers: { origin, "content-type": "application/json" }, data: {} });
    expect(noSession.status()).toBe(401);
    const foreign = await page.request.post(retireUrl, { headers: { origin: "https://evil.example", "content-type": "application/json" }, data: {} });
    expect(foreign.status()).toBe(403);
    expect(await listFlowIds(page.request)).toContain(flowId);

    await signIn(page);
    await page.goto(sandboxFlowPath);
    await waitForHydration(page);
    const button = notice.getByRole("button", { name: "Retire flow" });
    await expect(button).toBeVisible();
    await saveAtDesktopAndPhone(page, "flow-connector-missing-signed-in");
    page.once("dialog", (dialog) => void dialog.accept());
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(retireUrl) && r.request().method() === "POST"), button.click()]);
    expect(response.status()).toBe(202);
    // Retired at the collector's next cycle: gone from the API, the overview and the flow's own page.
    // toPass, not poll: a request that fails on its socket (a keep-alive connection the server closed as the client
    // reused it: ECONNRESET, seen once in CI) is asked again, as a page's next refresh would.
    await expect(async () => expect(await listFlowIds(page.request)).not.toContain(flowId)).toPass({ timeout: 60_000 });
    await page.goto("/");
    await expect(page.getByTestId(`flow-${flowId}`)).toHaveCount(0);
    expect((await page.request.get(sandboxFlowPath)).status()).toBe(404);
  } finally {
    // The sandbox as found: the connector re-created with its own config (Connect kept its offsets); a flow
    // re-created after its retirement is watched again.
    if (!(await getConnectors(endpoint)).some((c) => c.name === source)) await putConnectorConfig(endpoint, source, config);
  }
  await expect(async () => expect(await listFlowIds(page.request)).toContain(flowId)).toPass({ timeout: 120_000 });
});
