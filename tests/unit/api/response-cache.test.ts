import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResponseCache } from "@/lib/api/response-cache";

/**
 * A real HTTP server whose request listener goes through the cache the way install-response-cache.ts wires it in
 * front of Next.js; "Next" here renders `body` in two chunks (as a streamed page is written), after `renderMs` and once
 * `gate` (when set) resolves: a test holds renders in flight for as long as it needs, whatever the machine's load.
 */
interface Rig {
  base: string;
  renders: string[];
  body: string;
  status: number;
  setCookie: boolean;
  renderMs: number;
  gate: Promise<void> | null;
  version: object | null;
  clock: number;
  close: () => Promise<void>;
}

async function startRig(maxAgeMs = 1000): Promise<Rig> {
  const rig = { renders: [] as string[], body: "model-1", status: 200, setCookie: false, renderMs: 30, gate: null as Promise<void> | null, version: {} as object | null, clock: 0 };
  const cache = new ResponseCache({
    maxAgeMs,
    currentVersion: () => rig.version,
    identityHeaders: ["cookie", "authorization", "x-forwarded-user"],
    now: () => rig.clock,
  });
  const render = (request: http.IncomingMessage, response: http.ServerResponse) => {
    rig.renders.push(request.url ?? "");
    const body = rig.body;
    const status = rig.status;
    const setCookie = rig.setCookie;
    setTimeout(async () => {
      if (rig.gate !== null) await rig.gate;
      response.statusCode = status;
      response.setHeader("content-type", "text/html; charset=utf-8");
      if (setCookie) response.setHeader("set-cookie", "gw=1");
      response.write(`<p>${body.slice(0, 3)}`);
      response.end(`${body.slice(3)}</p>`);
    }, rig.renderMs);
  };
  // Pages rendered aside reach "Next" as install-response-cache.ts hands them over: the same listener, a copied request.
  const server = http.createServer((request, response) =>
    cache.handle(request, response, () => render(request, response), (copy, copyResponse) => render(copy, copyResponse)),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return Object.assign(rig, { base, close });
}

async function get(rig: Rig, path: string, headers: Record<string, string> = {}, method = "GET") {
  const response = await fetch(`${rig.base}${path}`, { headers, method });
  return { status: response.status, cache: response.headers.get("x-gapwatch-cache"), body: await response.text(), length: response.headers.get("content-length") };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds every render until the returned function is called. */
function holdRenders(rig: Rig): () => void {
  let release = () => {};
  rig.gate = new Promise<void>((resolve) => (release = resolve));
  return () => {
    rig.gate = null;
    release();
  };
}

/** Waits until "Next" has been asked for `count` renders in all (the requests reached it). */
async function untilRenders(rig: Rig, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (rig.renders.length < count) {
    if (Date.now() > deadline) throw new Error(`${rig.renders.length} renders, not ${count}, after 10 s`);
    await sleep(5);
  }
}

let rig: Rig;
beforeEach(async () => {
  rig = await startRig();
});
afterEach(async () => {
  await rig.close();
});

describe("ResponseCache", () => {
  it("renders a page once for 20 concurrent first requests and gives every one the same answer", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(rig, "/flows/east-%3Ewest")));
    expect(rig.renders).toEqual(["/flows/east-%3Ewest"]);
    expect(new Set(answers.map((a) => `${a.status} ${a.body}`))).toEqual(new Set(["200 <p>model-1</p>"]));
    expect(answers.filter((a) => a.cache === "miss")).toHaveLength(1);
    expect(answers.filter((a) => a.cache === "hit")).toHaveLength(19);
    // Replayed with its own length (the render was chunked).
    expect(answers.find((a) => a.cache === "hit")?.length).toBe(String("<p>model-1</p>".length));
  });

  it("answers from memory while fresh, and renders again once older than maxAgeMs", async () => {
    await get(rig, "/api/flows/east-%3Ewest?limit=5");
    rig.body = "model-X";
    rig.clock = 999;
    expect(await get(rig, "/api/flows/east-%3Ewest?limit=5")).toMatchObject({ cache: "hit", body: "<p>model-1</p>" });
    rig.clock = 1000 + 2000;
    // Older than maxAgeMs and nothing rendering it: this request renders it again (and gets the new answer).
    expect(await get(rig, "/api/flows/east-%3Ewest?limit=5")).toMatchObject({ cache: "miss", body: "<p>model-X</p>" });
    expect(rig.renders).toHaveLength(2);
  });

  it("keeps one entry per query string", async () => {
    await get(rig, "/flows/f?sort=name");
    await get(rig, "/flows/f?sort=lag-desc");
    expect(await get(rig, "/flows/f?sort=name")).toMatchObject({ cache: "hit" });
    expect(rig.renders).toEqual(["/flows/f?sort=name", "/flows/f?sort=lag-desc"]);
  });

  it("on a new read model gives the previous answer while one request renders the new one, then the new one", async () => {
    await get(rig, "/flows/f");
    rig.version = {};
    rig.body = "model-2";
    const release = holdRenders(rig);
    const refreshing = get(rig, "/flows/f");
    await untilRenders(rig, 2);
    const during = await Promise.all([get(rig, "/flows/f"), get(rig, "/flows/f")]);
    expect(during.map((a) => `${a.cache} ${a.body}`)).toEqual(["stale <p>model-1</p>", "stale <p>model-1</p>"]);
    release();
    expect(await refreshing).toMatchObject({ cache: "miss", body: "<p>model-2</p>" });
    expect(await get(rig, "/flows/f")).toMatchObject({ cache: "hit", body: "<p>model-2</p>" });
    expect(rig.renders).toHaveLength(2);
  });

  it("gives an answer past maxAgeMs but within the grace only while another request renders it", async () => {
    await get(rig, "/flows/f");
    rig.clock = 1000 + 9_999;
    rig.body = "model-4";
    const release = holdRenders(rig);
    const refreshing = get(rig, "/flows/f");
    await untilRenders(rig, 2);
    expect(await get(rig, "/flows/f")).toMatchObject({ cache: "stale", body: "<p>model-1</p>" });
    release();
    expect(await refreshing).toMatchObject({ cache: "miss", body: "<p>model-4</p>" });
    expect(rig.renders).toHaveLength(2);
  });

  it("never gives an answer older than maxAgeMs + the grace: concurrent requests wait for the render", async () => {
    await get(rig, "/flows/f");
    rig.clock = 1000 + 10_000;
    rig.body = "model-3";
    const answers = await Promise.all([get(rig, "/flows/f"), get(rig, "/flows/f"), get(rig, "/flows/f")]);
    expect(answers.map((a) => a.body)).toEqual(["<p>model-3</p>", "<p>model-3</p>", "<p>model-3</p>"]);
    expect(rig.renders).toHaveLength(2);
  });

  it("renders at most two pages at once after a new read model; the others are given stale, then rendered aside", async () => {
    const pages = ["/flows/f/topics/a", "/flows/f/topics/b", "/flows/f/topics/c", "/flows/f/topics/d"];
    for (const page of pages) await get(rig, page);
    rig.version = {};
    rig.body = "model-2";
    const release = holdRenders(rig);
    const rendering = [get(rig, pages[0]!), get(rig, pages[1]!)];
    await untilRenders(rig, pages.length + 2);
    const meanwhile = await Promise.all([get(rig, pages[2]!), get(rig, pages[3]!)]);
    expect(meanwhile.map((a) => `${a.cache} ${a.body}`)).toEqual(["stale <p>model-1</p>", "stale <p>model-1</p>"]);
    release();
    expect((await Promise.all(rendering)).map((a) => `${a.cache} ${a.body}`)).toEqual(["miss <p>model-2</p>", "miss <p>model-2</p>"]);
    // As the two slots freed, the two pages given stale were rendered aside (no client waiting for them).
    for (const page of pages.slice(2)) {
      const deadline = Date.now() + 10_000;
      let answer = await get(rig, page);
      while (answer.cache !== "hit" && Date.now() < deadline) {
        expect(answer).toMatchObject({ cache: "stale", body: "<p>model-1</p>" });
        await sleep(50);
        answer = await get(rig, page);
      }
      expect(answer).toMatchObject({ cache: "hit", body: "<p>model-2</p>" });
    }
    expect(rig.renders).toEqual([...pages, ...pages]);
  });

  it("makes a request with no answer to give wait for a free render slot, then renders it", async () => {
    const release = holdRenders(rig);
    const busy = [get(rig, "/flows/f/topics/a"), get(rig, "/flows/f/topics/b")];
    await untilRenders(rig, 2);
    const waiting = get(rig, "/flows/f/topics/c");
    await sleep(60);
    expect(rig.renders).toEqual(["/flows/f/topics/a", "/flows/f/topics/b"]);
    release();
    expect(await waiting).toMatchObject({ cache: "miss", body: "<p>model-1</p>" });
    await Promise.all(busy);
    expect(rig.renders).toEqual(["/flows/f/topics/a", "/flows/f/topics/b", "/flows/f/topics/c"]);
  });

  it("renders every request that carries an identity, and never answers one from another's render", async () => {
    await get(rig, "/flows/f");
    const identities: Array<Record<string, string>> = [{ cookie: "gw_session=abc" }, { authorization: "Bearer x" }, { "x-forwarded-user": "ana" }];
    for (const headers of identities) {
      expect(await get(rig, "/flows/f", headers)).toMatchObject({ cache: null, body: "<p>model-1</p>" });
    }
    expect(rig.renders).toHaveLength(4);
  });

  it("leaves live routes, other methods and unknown paths to Next.js", async () => {
    for (const path of ["/api/health", "/api/health/live", "/api/health/ready", "/api/metrics", "/signin", "/api/session", "/_next/static/x.js", "/flowsx"]) {
      await get(rig, path);
      expect(await get(rig, path)).toMatchObject({ cache: null });
    }
    await get(rig, "/flows/f", {}, "HEAD");
    await get(rig, "/flows/f", {}, "HEAD");
    expect(rig.renders).toHaveLength(18);
  });

  it("keeps no error or cookie-setting answer: the waiting requests are rendered themselves", async () => {
    rig.status = 404;
    const missing = await Promise.all([get(rig, "/flows/gone"), get(rig, "/flows/gone"), get(rig, "/flows/gone")]);
    expect(missing.map((a) => a.status)).toEqual([404, 404, 404]);
    expect(rig.renders).toHaveLength(3);
    rig.status = 200;
    rig.setCookie = true;
    await get(rig, "/alerts");
    expect(await get(rig, "/alerts")).toMatchObject({ cache: "miss" });
    expect(rig.renders).toHaveLength(5);
  });

  it("keeps separate answers for gzip and identity encodings, and for RSC navigations", async () => {
    await get(rig, "/flows/f", { "accept-encoding": "identity" });
    await get(rig, "/flows/f", { "accept-encoding": "gzip, deflate" });
    await get(rig, "/flows/f", { "accept-encoding": "identity", rsc: "1" });
    expect(await get(rig, "/flows/f", { "accept-encoding": "br, gzip" })).toMatchObject({ cache: "hit" });
    expect(await get(rig, "/flows/f", { "accept-encoding": "identity", rsc: "1" })).toMatchObject({ cache: "hit" });
    expect(rig.renders).toHaveLength(3);
  });

  it("keeps nothing before the first read model", async () => {
    rig.version = null;
    await get(rig, "/flows/f");
    expect(await get(rig, "/flows/f")).toMatchObject({ cache: null });
    expect(rig.renders).toHaveLength(2);
  });
});

describe("ResponseCache turned off", () => {
  it("forwards every request with maxAgeMs 0", async () => {
    const off = await startRig(0);
    try {
      await get(off, "/flows/f");
      expect(await get(off, "/flows/f")).toMatchObject({ cache: null });
      expect(off.renders).toHaveLength(2);
    } finally {
      await off.close();
    }
  });
});
