import { expect, test, type APIRequestContext } from "@playwright/test";

const flowPage = `/flows/${encodeURIComponent("east->west")}`;

async function getPage(request: APIRequestContext, path: string, headers: Record<string, string> = {}) {
  const response = await request.get(path, { headers });
  expect(response.status()).toBe(200);
  const body = await response.text();
  return { cache: response.headers()["x-gapwatch-cache"] ?? null, body, updated: /Last updated (\d\d:\d\d:\d\d) UTC/.exec(body)?.[1] ?? null };
}

test("anonymous reads of a page are answered from memory within a cycle, and a new cycle is shown", async ({ request }) => {
  // Two GETs in a row: the second is the first's answer, byte for byte (unless a cycle ended in between: try again).
  let pair: Array<Awaited<ReturnType<typeof getPage>>> = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    pair = [await getPage(request, flowPage), await getPage(request, flowPage)];
    if (pair[1]!.cache === "hit") break;
  }
  expect(pair[1]!.cache).toBe("hit");
  expect(pair[1]!.body).toBe(pair[0]!.body);
  expect(pair[0]!.updated).not.toBeNull();
  // The cache never freezes a page: within two poll intervals (5 s) it shows a newer cycle.
  await expect.poll(async () => (await getPage(request, flowPage)).updated, { timeout: 20_000, intervals: [500] }).not.toBe(pair[0]!.updated);
});

test("a request with a cookie or credentials, and the live routes, always reach Next.js", async ({ request }) => {
  await getPage(request, flowPage);
  expect((await getPage(request, flowPage, { cookie: "gw_unrelated=1" })).cache).toBeNull();
  expect((await getPage(request, flowPage, { authorization: "Bearer not-a-token" })).cache).toBeNull();
  for (const live of ["/api/health", "/api/metrics"]) {
    const response = await request.get(live);
    expect(response.headers()["x-gapwatch-cache"]).toBeUndefined();
  }
});
