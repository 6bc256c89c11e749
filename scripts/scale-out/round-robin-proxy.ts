import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http";

/** A web instance behind the proxy: its name (sent back in `instanceHeader`) and loopback port. */
export interface Upstream {
  name: string;
  port: number;
}

export interface RoundRobinProxy {
  /** The port it listens on (the one asked for, or the OS's pick for 0). */
  port: number;
  close(): Promise<void>;
}

/** Response header naming the instance that answered, so a check can tell the instances apart. */
export const instanceHeader = "x-gapwatch-instance";

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, so a proxy never forwards them. */
const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authenticate", "proxy-authorization"]);

/** The end-to-end headers of a message: without hop-by-hop ones and those its Connection header names. */
function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(String(headers.connection ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name) && !named.has(name)));
}

/**
 * The scale-out demo's one public port: an HTTP reverse proxy that sends each request to the next web instance in
 * turn (round-robin), as a load balancer in front of stateless web instances would. Method, path, headers (Host
 * kept, so the app's allowed-hosts check sees the public name) and body are forwarded as a stream, and the response
 * streams back unbuffered with `instanceHeader` added. An instance that does not answer gives 502 naming it.
 */
export function startRoundRobinProxy(opts: { port: number; upstreams: readonly Upstream[] }): Promise<RoundRobinProxy> {
  if (opts.upstreams.length === 0) throw new Error("the proxy needs at least one upstream");
  const agent = new http.Agent({ keepAlive: true });
  let turn = 0;
  const server = http.createServer((req, res) => {
    const upstream = opts.upstreams[turn++ % opts.upstreams.length]!;
    const forwardedFor = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const headers = { ...endToEnd(req.headers), "x-forwarded-for": forwardedFor, "x-forwarded-proto": "http" };
    const outgoing = http.request({ host: "127.0.0.1", port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, { ...endToEnd(answer.headers), [instanceHeader]: upstream.name });
      answer.pipe(res);
    });
    outgoing.on("error", (err) => {
      if (res.headersSent) {
        res.destroy(err);
        return;
      }
      res.writeHead(502, { "content-type": "application/json", [instanceHeader]: upstream.name });
      res.end(JSON.stringify({ error: `web instance ${upstream.name} (port ${upstream.port}) did not answer: ${err.message}` }));
    });
    // A client that goes away mid-response (a closed tab on a streaming page) ends the upstream request too.
    res.on("close", () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => {
      const address = server.address();
      const port = address !== null && typeof address === "object" ? address.port : opts.port;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
            agent.destroy();
          }),
      });
    });
  });
}
