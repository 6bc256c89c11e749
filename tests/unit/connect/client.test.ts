import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Server as NetServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { requestConnect } from "@/lib/connect/client";
import { ConnectApiError } from "@/lib/errors";

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (req: SeenRequest, res: ServerResponse) => void;

const servers: Server[] = [];
const netServers: NetServer[] = [];

/** Starts an HTTP peer on 127.0.0.1 that answers with `handler`; returns its base URL and what it saw. */
async function startPeer(handler: Handler): Promise<{ url: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(request);
      handler(request, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A port that was just free: a server is bound to it and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  return port;
}

/** A TCP peer that answers like a TLS server to plain HTTP: with a TLS alert record, not an HTTP status line. */
function createTlsLikePeer(): NetServer {
  const server = createNetServer((socket) => {
    socket.once("data", () => socket.end(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46])));
  });
  netServers.push(server);
  return server;
}

async function listen(server: NetServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The ConnectApiError a request rejects with (fails the test if it resolves or rejects otherwise). */
async function connectErrorOf(promise: Promise<unknown>): Promise<ConnectApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ConnectApiError) return err;
    throw err;
  }
  throw new Error("expected a ConnectApiError");
}

afterEach(async () => {
  for (const s of netServers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

describe("requestConnect", () => {
  it("parses a 200 JSON answer and sends only the accept header for a GET", async () => {
    const peer = await startPeer((_req, res) => json(res, 200, ["mm2-source", "mm2-checkpoint"]));
    await expect(requestConnect<string[]>({ url: peer.url }, "GET", "/connectors")).resolves.toEqual(["mm2-source", "mm2-checkpoint"]);
    expect(peer.seen.map((r) => [r.method, r.url, r.headers.accept, r.headers["content-type"], r.headers.authorization, r.body])).toEqual([
      ["GET", "/connectors", "application/json", undefined, undefined, ""],
    ]);
  });

  it("drops trailing slashes of the base URL", async () => {
    const peer = await startPeer((_req, res) => json(res, 200, { version: "3.9.0" }));
    await expect(requestConnect({ url: `${peer.url}//` }, "GET", "/")).resolves.toEqual({ version: "3.9.0" });
    expect(peer.seen[0]?.url).toBe("/");
  });

  it("sends a JSON body with its content type", async () => {
    const peer = await startPeer((_req, res) => json(res, 201, { name: "mm2-source" }));
    await requestConnect({ url: peer.url }, "PUT", "/connectors/mm2-source/config", { "tasks.max": "2" });
    expect([peer.seen[0]?.method, peer.seen[0]?.headers["content-type"], peer.seen[0]?.body]).toEqual(["PUT", "application/json", '{"tasks.max":"2"}']);
  });

  it("sends a basic auth header when credentials are given", async () => {
    const peer = await startPeer((_req, res) => json(res, 200, {}));
    await requestConnect({ url: peer.url, auth: { username: "gapwatch", password: "p@ss:word" } }, "GET", "/connectors");
    expect(peer.seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from("gapwatch:p@ss:word").toString("base64")}`);
  });

  it("sends a bearer token and extra headers, which cannot replace accept or authorization", async () => {
    const peer = await startPeer((_req, res) => json(res, 200, {}));
    const headers = { "X-Api-Key": "k-123", Accept: "text/html" };
    await requestConnect({ url: peer.url, bearerToken: "t0ken", headers }, "GET", "/connectors");
    expect([peer.seen[0]?.headers.authorization, peer.seen[0]?.headers["x-api-key"], peer.seen[0]?.headers.accept]).toEqual([
      "Bearer t0ken",
      "k-123",
      "application/json",
    ]);
  });

  it("says which credential a 401 answered, never its value", async () => {
    const peer = await startPeer((_req, res) => json(res, 401, { message: "Unauthorized" }));
    const err = await connectErrorOf(requestConnect({ url: peer.url, bearerToken: "t0ken-secret" }, "GET", "/connectors"));
    expect(err.message).toBe(`Kafka Connect GET ${peer.url}/connectors answered 401: Unauthorized (Gapwatch sent a bearer token; check auth or bearerToken of this connect entry)`);
    expect(err.message).not.toContain("t0ken-secret");
  });

  it("explains Jetty's 400 Invalid SNI: the url's host is not in Connect's certificate", async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(400, { "content-type": "text/html" });
      res.end("<h2>HTTP ERROR 400 Invalid SNI</h2>");
    });
    const err = await connectErrorOf(requestConnect({ url: peer.url }, "GET", "/connectors"));
    expect(err.message).toMatch(/answered 400: .*Invalid SNI.* \(Connect's HTTPS listener refuses a host name its certificate does not list: use a name it lists in the url\)$/);
  });

  it("names a plain http request to a TLS port", async () => {
    const server = createTlsLikePeer();
    const url = `http://127.0.0.1:${await listen(server)}`;
    const err = await connectErrorOf(requestConnect({ url }, "GET", "/connectors"));
    expect(err.message).toMatch(/failed: the answer is not HTTP: is this an HTTPS port given an http:\/\/ url\?/);
  });

  it("resolves undefined for an empty successful answer", async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(requestConnect({ url: peer.url }, "PUT", "/connectors/mm2-source/pause")).resolves.toBeUndefined();
  });

  it("turns a 404 into a ConnectApiError with the URL, the status and Connect's message", async () => {
    const peer = await startPeer((_req, res) => json(res, 404, { error_code: 404, message: "Connector x not found" }));
    const err = await connectErrorOf(requestConnect({ url: peer.url }, "GET", "/connectors/x/status"));
    expect(err.message).toBe(`Kafka Connect GET ${peer.url}/connectors/x/status answered 404: Connector x not found`);
    expect([err.url, err.status, err.code]).toEqual([`${peer.url}/connectors/x/status`, 404, "GW_CONNECT_API"]);
  });

  it("quotes a non-JSON error body, cut to 300 characters", async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("x".repeat(400));
    });
    const err = await connectErrorOf(requestConnect({ url: peer.url }, "GET", "/connectors"));
    expect(err.message).toBe(`Kafka Connect GET ${peer.url}/connectors answered 500: ${"x".repeat(300)}`);
    expect(err.status).toBe(500);
  });

  it("says the body was empty when an error answer has none", async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const err = await connectErrorOf(requestConnect({ url: peer.url }, "GET", "/connectors"));
    expect(err.message).toBe(`Kafka Connect GET ${peer.url}/connectors answered 503: (empty body)`);
  });

  it("rejects a 200 answer whose body is not JSON", async () => {
    const peer = await startPeer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>proxy login</html>");
    });
    const err = await connectErrorOf(requestConnect({ url: peer.url }, "GET", "/connectors"));
    expect(err.message).toBe(`Kafka Connect GET ${peer.url}/connectors returned a body that is not JSON: <html>proxy login</html>`);
    expect(err.status).toBe(200);
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it("gives up after timeoutMs when the server never answers", async () => {
    const peer = await startPeer(() => {
      // Never answer.
    });
    const started = Date.now();
    const err = await connectErrorOf(requestConnect({ url: peer.url, timeoutMs: 150 }, "GET", "/connectors"));
    expect(err.message).toBe(`Kafka Connect GET ${peer.url}/connectors failed: no answer within 150 ms`);
    expect(err.status).toBeNull();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("names ECONNREFUSED when nothing listens on the port", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const err = await connectErrorOf(requestConnect({ url }, "GET", "/connectors"));
    expect(err.message.startsWith(`Kafka Connect GET ${url}/connectors failed: ECONNREFUSED`)).toBe(true);
    expect([err.url, err.status]).toEqual([`${url}/connectors`, null]);
  });
});
