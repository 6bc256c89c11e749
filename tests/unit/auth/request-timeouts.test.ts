import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { installPeerAddressStamp } from "@/lib/auth/client-address";
import { headersTimeoutMs } from "@/lib/auth/request-timeouts";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

describe("the server hook against slow clients", () => {
  it("answers a client that trickles its headers 408 and closes it about 10 s after it connected, not 60 s", async () => {
    // As `next start`: the server listens first, then instrumentation.ts installs the hook.
    const server = http.createServer((_, res) => res.end("ok"));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    installPeerAddressStamp();
    const { port } = server.address() as AddressInfo;
    const socket = net.connect(port, "127.0.0.1");
    const request = Buffer.from("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n");
    let sent = 0;
    const started = Date.now();
    const timer = setInterval(() => socket.write(request.subarray(sent, ++sent)), 500);
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    const closedAfterMs = await new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now() - started)));
    clearInterval(timer);
    expect(headersTimeoutMs).toBe(10_000);
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    // 10 s of headers timeout, checked every second (Node's own check runs every 30 s unless re-armed).
    expect(closedAfterMs).toBeGreaterThanOrEqual(9_900);
    expect(closedAfterMs).toBeLessThan(13_000);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
  }, 30_000);
});
