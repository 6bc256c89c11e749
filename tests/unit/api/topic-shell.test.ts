import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CapturedAnswer, ResponseCache } from "@/lib/api/response-cache";
import { fillTopicShell, formatShellUrl, matchPageDataUrl, matchTopicPageUrl } from "@/lib/api/topic-shell";
import { shellTopicPlaceholder } from "@/lib/views/topic-page-data";

const placeholder = shellTopicPlaceholder;
/** A page as Next.js writes it for the placeholder: the name in the title, a link, the RSC payload and a header. */
const shellText = [
  `<html><head><title>Topic ${placeholder} · east→west</title>`,
  `<link rel="preload" href="/api/flows/east-%3Ewest/topics/${placeholder}/page-data" as="fetch"/></head>`,
  `<body><h1>Topic ${placeholder}</h1>${"<div class=\"row\">static text of the layout</div>".repeat(200)}`,
  `<script>self.__next_f.push([1,"[\\"topic\\",\\"${placeholder}\\",\\"d\\"]"])</script></body></html>`,
].join("");
const expectedFor = (topic: string) => shellText.replaceAll(placeholder, topic);
const shellHeaders = { "content-type": "text/html; charset=utf-8", link: `</api/flows/east-%3Ewest/topics/${placeholder}/page-data>; rel=preload` };

describe("fillTopicShell", () => {
  it("puts the topic's name wherever the shell holds the placeholder, in the body and the headers", () => {
    const filled = fillTopicShell({ status: 200, headers: shellHeaders, body: Buffer.from(shellText) }, "orders.v2_eu-1");
    expect(filled?.body.toString()).toBe(expectedFor("orders.v2_eu-1"));
    expect(filled?.headers.link).toBe("</api/flows/east-%3Ewest/topics/orders.v2_eu-1/page-data>; rel=preload");
  });

  it("joins a gzip body from pieces compressed once, which decompresses to the page of that topic (CRC-32 and size)", () => {
    const shell = { status: 200, headers: { ...shellHeaders, "content-encoding": "gzip" }, body: zlib.gzipSync(shellText) };
    for (const topic of ["orders", "a", "x".repeat(249)]) {
      const filled = fillTopicShell(shell, topic)!;
      // gunzipSync checks the trailer's CRC-32 and length: a wrong one throws.
      expect(zlib.gunzipSync(filled.body).toString()).toBe(expectedFor(topic));
      expect(filled.headers["content-encoding"]).toBe("gzip");
    }
    // Compressed pieces, not the uncompressed text: the body stays small.
    expect(fillTopicShell(shell, "orders")!.body.length).toBeLessThan(shellText.length / 4);
  });

  it("cannot fill an answer in another encoding or one that does not name the placeholder", () => {
    expect(fillTopicShell({ status: 200, headers: { "content-encoding": "br" }, body: Buffer.from("x") }, "orders")).toBeNull();
    expect(fillTopicShell({ status: 200, headers: {}, body: Buffer.from("<html>no name</html>") }, "orders")).toBeNull();
  });
});

describe("topic page URLs", () => {
  it("matches a topic page with a plain topic name, keeping the flow segment and the query as sent", () => {
    expect(matchTopicPageUrl("/flows/east-%3Ewest/topics/orders?range=24h")).toEqual({ flowSegment: "east-%3Ewest", topic: "orders", query: "?range=24h" });
    expect(formatShellUrl(matchTopicPageUrl("/flows/east-%3Ewest/topics/orders?range=24h")!)).toBe(`/flows/east-%3Ewest/topics/${placeholder}?range=24h`);
  });

  it("leaves to Next.js a name a shell cannot hold, the placeholder itself and other pages", () => {
    for (const url of ["/flows/f/topics/or%20ders", "/flows/f/topics/%E0%A4%A", `/flows/f/topics/${placeholder}`, "/flows/f/topics/orders/3", "/flows/f", `/flows/f/topics/${"x".repeat(250)}`]) {
      expect(matchTopicPageUrl(url)).toBeNull();
    }
  });

  it("matches a topic's page data without a query only", () => {
    expect(matchPageDataUrl("/api/flows/east-%3Ewest/topics/orders/page-data")).toEqual({ flowSegment: "east-%3Ewest", topic: "orders" });
    expect(matchPageDataUrl("/api/flows/east-%3Ewest/topics/orders/page-data?x=1")).toBeNull();
    expect(matchPageDataUrl("/api/flows/east-%3Ewest/topics/or%2Fders/page-data")).toBeNull();
  });
});

/** A server whose "Next" renders a shell page for any topic URL after `renderMs`, behind a cache with the topic route. */
interface Rig {
  base: string;
  renders: string[];
  status: number;
  topics: Set<string>;
  version: object;
  clock: number;
  close: () => Promise<void>;
}

async function startRig(): Promise<Rig> {
  const rig = { renders: [] as string[], status: 200, topics: new Set(["orders", "payments"]), version: {} as object, clock: 0 };
  const cache = new ResponseCache<object>({
    maxAgeMs: 1000,
    currentVersion: () => rig.version,
    identityHeaders: ["cookie"],
    now: () => rig.clock,
    shells: {
      matchShell(url) {
        const page = matchTopicPageUrl(url);
        if (page === null || !rig.topics.has(page.topic)) return null;
        return { shellUrl: formatShellUrl(page), value: page.topic, permit: "topics" };
      },
      fillShell: fillTopicShell,
      matchData(url) {
        const ask = matchPageDataUrl(url);
        if (ask === null) return null;
        return { permit: "topics", answer: (): CapturedAnswer | null => (rig.topics.has(ask.topic) ? { status: 200, headers: { "content-type": "application/json" }, body: Buffer.from(`{"topic":"${ask.topic}"}`) } : null) };
      },
    },
  });
  const render = (request: http.IncomingMessage, response: http.ServerResponse) => {
    rig.renders.push(request.url ?? "");
    const topic = /\/topics\/([^/?]+)/.exec(request.url ?? "")?.[1] ?? "?";
    const status = rig.status;
    setTimeout(() => {
      response.statusCode = status;
      response.setHeader("content-type", request.url?.includes("/api/") ? "application/json" : "text/html");
      response.end(request.url?.includes("/api/") ? `{"topic":"${topic}","from":"next"}` : `<h1>Topic ${topic}</h1><a href="/flows/f/topics/${topic}/0">0</a>`);
    }, 20);
  };
  const server = http.createServer((request, response) =>
    cache.handle(request, response, () => render(request, response), (copy, copyResponse) => render(copy, copyResponse)),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(rig, { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

async function get(rig: Rig, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${rig.base}${path}`, { headers });
  return { status: response.status, cache: response.headers.get("x-gapwatch-cache"), body: await response.text() };
}

/** The cache status of a GET sent with `host` as its Host header. */
function getWithHost(rig: Rig, path: string, host: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${rig.base}${path}`, { headers: { host } }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.headers["x-gapwatch-cache"] as string | undefined));
    });
    request.on("error", reject);
  });
}

let rig: Rig;
beforeEach(async () => {
  rig = await startRig();
});
afterEach(async () => {
  await rig.close();
});

describe("ResponseCache with a shell route", () => {
  it("renders the flow's shell once for the first requests of many topics, each answered with its own name", async () => {
    const answers = await Promise.all(["orders", "payments", "orders", "payments"].map((t) => get(rig, `/flows/f/topics/${t}`)));
    expect(rig.renders).toEqual([`/flows/f/topics/${placeholder}`]);
    expect(answers.map((a) => a.body)).toEqual(["orders", "payments", "orders", "payments"].map((t) => `<h1>Topic ${t}</h1><a href="/flows/f/topics/${t}/0">0</a>`));
    expect(new Set(answers.map((a) => a.cache))).toEqual(new Set(["shell"]));
    // Kept under its own URL: the next request for it is a plain hit.
    expect(await get(rig, "/flows/f/topics/orders")).toMatchObject({ cache: "hit" });
    // A new read model: one render of the shell again.
    rig.version = {};
    expect(await get(rig, "/flows/f/topics/payments")).toMatchObject({ cache: "shell", body: expect.stringContaining("Topic payments") });
    expect(rig.renders).toHaveLength(2);
  });

  it("sends a topic the model does not list, and a request with a cookie, to Next.js", async () => {
    expect(await get(rig, "/flows/f/topics/gone")).toMatchObject({ cache: "miss", body: expect.stringContaining("Topic gone") });
    expect(await get(rig, "/flows/f/topics/orders", { cookie: "s=1" })).toMatchObject({ cache: null, body: expect.stringContaining("Topic orders") });
    expect(rig.renders).toEqual(["/flows/f/topics/gone", "/flows/f/topics/orders"]);
  });

  it("answers page data from the model only once Next.js answered the flow's shell for this host", async () => {
    // No shell answered yet: Next.js answers (its route handler; the proxy's checks run there).
    expect(await get(rig, "/api/flows/f/topics/orders/page-data")).toMatchObject({ cache: "miss", body: '{"topic":"orders","from":"next"}' });
    await get(rig, "/flows/f/topics/orders");
    expect(await get(rig, "/api/flows/f/topics/payments/page-data")).toMatchObject({ cache: "data", body: '{"topic":"payments"}' });
    expect(await get(rig, "/api/flows/f/topics/payments/page-data")).toMatchObject({ cache: "hit", body: '{"topic":"payments"}' });
    // Another host name (fetch cannot set Host): its own permit.
    expect(await getWithHost(rig, "/api/flows/f/topics/orders/page-data", "other.example")).toBe("miss");
    // A topic the model does not list: Next.js's 404, whatever the permit.
    expect(await get(rig, "/api/flows/f/topics/gone/page-data")).toMatchObject({ cache: null, body: '{"topic":"gone","from":"next"}' });
  });

  it("gives no permit when the shell's render is refused (sign-in required): page data and pages go to Next.js", async () => {
    rig.status = 401;
    expect((await get(rig, "/flows/f/topics/orders")).status).toBe(401);
    expect(await get(rig, "/api/flows/f/topics/orders/page-data")).toMatchObject({ status: 401, cache: "miss" });
    expect(rig.renders).toEqual([`/flows/f/topics/${placeholder}`, "/flows/f/topics/orders", "/api/flows/f/topics/orders/page-data"]);
  });
});
