import { expect, test, type APIRequestContext } from "@playwright/test";
import { sandboxFlowPath, waitForHydration } from "../flow/wait-hydrated";
import { saveScreenshot, timePageLoad } from "../support/screenshots";

/** A request the response cache never answers (a cookie): Next.js renders it for this caller. */
const rendered = { cookie: "e2e=topic-shell" };

async function getText(request: APIRequestContext, path: string, headers: Record<string, string> = {}) {
  const response = await request.get(path, { headers });
  return { status: response.status(), cache: response.headers()["x-gapwatch-cache"] ?? null, body: await response.text() };
}

/** What differs between two renders of one page at different moments: times, ages and epoch numbers. */
function withoutTimes(html: string): string {
  return html
    .replace(/\d\d:\d\d:\d\d UTC \([^)]*\)/g, "T")
    .replace(/\b\d{13}\b/g, "N")
    .replace(/\b\d+(\.\d+)? ?(ms|s|min|h|d)\b/g, "AGE");
}

/**
 * The topic's page as the response cache answers it (a filled shell) and as Next.js renders it for a caller with a
 * cookie, within one cycle (tried again when a new read model arrives between the two).
 */
async function readShellAndRender(request: APIRequestContext, topic: string) {
  let pair: Array<Awaited<ReturnType<typeof getText>>> = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const shell = await getText(request, `${sandboxFlowPath}/topics/${topic}`);
    pair = [shell, await getText(request, `${sandboxFlowPath}/topics/${topic}`, rendered)];
    if (pair[0]!.status === 200 && withoutTimes(pair[0]!.body) === withoutTimes(pair[1]!.body)) break;
  }
  return { shell: pair[0]!, render: pair[1]! };
}

test("every topic of the flow is answered from one shell, byte for byte the page Next.js renders for that topic", async ({ request }) => {
  // Two topics of the same flow, each filled in from the flow's one shell with its own name. The pages may name
  // other topics (an alert banner shows every flow's critical alerts), so each is compared with Next.js's own
  // render of that topic, times aside.
  for (const topic of ["payments", "clicks"]) {
    const { shell, render } = await readShellAndRender(request, topic);
    expect(shell.status, topic).toBe(200);
    expect(["shell", "hit", "stale"]).toContain(shell.cache);
    expect(render.cache).toBeNull();
    expect(withoutTimes(shell.body)).toBe(withoutTimes(render.body));
    expect(shell.body).toContain(`<title>${topic} · east→west · Gapwatch</title>`);
    expect(shell.body).toContain(`Topic ${topic}`);
    expect(shell.body).not.toContain("gapwatch-shell-topic");
  }
});

test("a topic's page data are the same from the response cache as from Next.js, and an unknown topic is still 404", async ({ request }) => {
  // The shell first (the data's permit), as a browser asks for them.
  await getText(request, `${sandboxFlowPath}/topics/orders`);
  let pair: Array<Awaited<ReturnType<typeof getText>>> = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    pair = [await getText(request, `/api${sandboxFlowPath}/topics/orders/page-data`), await getText(request, `/api${sandboxFlowPath}/topics/orders/page-data`, rendered)];
    if (pair[0]!.body === pair[1]!.body) break;
  }
  expect(["data", "hit"]).toContain(pair[0]!.cache);
  expect(pair[1]!.cache).toBeNull();
  expect(pair[0]!.body).toBe(pair[1]!.body);
  const data = JSON.parse(pair[0]!.body) as { topic: string; partitions: number; targetTopic: string; rows: { count: number } };
  expect(data).toMatchObject({ topic: "orders", partitions: 6, targetTopic: "east.orders", rows: { count: 6 } });
  expect((await getText(request, `${sandboxFlowPath}/topics/no-such-topic`)).status).toBe(404);
  expect((await getText(request, `/api${sandboxFlowPath}/topics/no-such-topic/page-data`)).status).toBe(404);
});

test("the topic page shows its figures and rows from the page data, preloaded while the HTML is read", async ({ page }) => {
  const dataRequests: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/page-data")) dataRequests.push(r.url());
  });
  // Auto-refresh off: a refresh reads the data again, and this counts the page's one read.
  await timePageLoad(page, `${sandboxFlowPath}/topics/orders?refresh=off`);
  await waitForHydration(page);
  await expect(page.getByTestId("partition-table")).toHaveAttribute("data-total-rows", "6", { timeout: 60_000 });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Topic orders");
  await expect(page.locator("main")).toContainText(/replicated as east\.orders on west · 6 partitions · lag [\d,]+ records/);
  await expect(page.getByTestId("partitions-loading")).toHaveCount(0);
  // One request for the data: the preload's answer is the one the client reads.
  expect(dataRequests.filter((url) => url.endsWith("/topics/orders/page-data"))).toHaveLength(1);
  await saveScreenshot(page, "topic-shell-orders");
});
