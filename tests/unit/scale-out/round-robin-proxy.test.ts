import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceHeader, type RoundRobinProxy, startRoundRobinProxy } from "@/scripts/scale-out/round-robin-proxy";

/** What an upstream saw of one request, sent back as its JSON body. */
interface Seen {
  server: string;
  method: string;
  url: string;
  host: string;
  custom: string;
  forwardedFor: string;
  connectionHeader: string;
  body: string;
}

const servers: http.Server[] = [];
let proxy: RoundRobinProxy;
let release: () => void = () => undefined;

/** A real HTTP server on loopback that echoes what it received; `/stream` sends one chunk, then waits for `release`. */
async function startEcho(server: string): Promise<number> {
  const s = http.createServer((req, res) => {
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first;");
      release = () => res.end("last");
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const seen: Seen = {
        server, method: req.method ?? "", url: req.url ?? "", host: req.headers.host ?? "", custom: String(req.headers["x-custom"] ?? ""),
        forwardedFor: String(req.headers["x-forwarded-for"] ?? ""), connectionHeader: String(req.headers["x-hop"] ?? "absent"), body,
      };
      res.writeHead(201, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"], "x-upstream": server });
      res.end(JSON.stringify(seen));
    });
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return (s.address() as AddressInfo).port;
}

/** A request through the proxy with node:http (fetch would hide Set-Cookie lists and set its own Host). */
function send(method: string, path: string, headers: Record<string, string>, body = ""): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: proxy.port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  const [a, b] = [await startEcho("web-a"), await startEcho("web-b")];
  // The third upstream is a port nobody listens on: a closed server's port.
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const dead = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  proxy = await startRoundRobinProxy({ port: 0, upstreams: [{ name: "web-a", port: a }, { name: "web-b", port: b }, { name: "web-c", port: dead }] });
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe("round-robin proxy (scale-out demo)", () => {
  it("sends requests to the instances in turn, forwarding method, path, headers and body, and names the instance", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) {
      answers.push(await send("POST", `/api/alerts/a${i}/acknowledge?x=${i}`, { host: "gapwatch.example:3000", "x-custom": `v${i}`, connection: "x-hop", "x-hop": "dropped", "content-type": "application/json" }, `{"n":${i}}`));
    }
    expect(answers.map((a) => [a.status, a.headers[instanceHeader]])).toEqual([
      [201, "web-a"], [201, "web-b"], [502, "web-c"], [201, "web-a"], [201, "web-b"], [502, "web-c"],
    ]);
    const first = answers[0]!;
    expect(JSON.parse(first.body)).toEqual({
      server: "web-a", method: "POST", url: "/api/alerts/a0/acknowledge?x=0", host: "gapwatch.example:3000", custom: "v0",
      forwardedFor: "127.0.0.1", connectionHeader: "absent", body: '{"n":0}',
    });
    expect([first.headers["set-cookie"], first.headers["x-upstream"]]).toEqual([["a=1", "b=2"], "web-a"]);
    expect(JSON.parse(answers[4]!.body)).toMatchObject({ server: "web-b", url: "/api/alerts/a4/acknowledge?x=4", custom: "v4", body: '{"n":4}' });
    expect(JSON.parse(answers[2]!.body).error).toMatch(/^web instance web-c \(port \d+\) did not answer: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  it("streams a response: the first chunk arrives before the upstream has finished", async () => {
    // The turn is web-a's again after the six requests above (6 % 3 = 0).
    const chunks: string[] = [];
    const done = new Promise<string>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port: proxy.port, path: "/stream" }, (res) => {
        res.on("data", (chunk: Buffer) => {
          chunks.push(chunk.toString("utf8"));
          if (chunks.length === 1) release();
        });
        res.on("end", () => resolve(`${res.headers[instanceHeader]}: ${chunks.join("")}`));
      }).on("error", reject);
    });
    expect(await done).toBe("web-a: first;last");
    expect(chunks[0]).toBe("first;");
  });
});
