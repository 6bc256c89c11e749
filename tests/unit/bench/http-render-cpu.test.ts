import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureRenderCpu } from "../../../scripts/bench/http-render-cpu";

/** A server in this process: `/burn` spins 20 ms of CPU per request (CPU, not wall time), `/bare` answers at once. */
let server: http.Server;
let base: string;
const seen: { url: string; cookie: string | undefined }[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    seen.push({ url: request.url ?? "", cookie: request.headers.cookie });
    if (request.url?.startsWith("/burn")) {
      const start = process.cpuUsage();
      const spent = () => {
        const used = process.cpuUsage(start);
        return (used.user + used.system) / 1000;
      };
      while (spent() < 20);
    }
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("measureRenderCpu", () => {
  it("charges each target the server's CPU per request: 20 ms of work shows as about 20 ms, a bare answer as little", async () => {
    const [bare, burn] = (await measureRenderCpu(base, process.pid, [
      { name: "bare", paths: ["/bare"] },
      { name: "burn", paths: ["/burn/a", "/burn/b"] },
    ], 2))!;
    expect(bare).toMatchObject({ name: "bare", path: "/bare", requests: 20 });
    expect(burn).toMatchObject({ name: "burn", path: "/burn/a", requests: 20 });
    // The client's own CPU (fetch) is in this process too: a floor, the same for both targets.
    expect(burn!.cpuMsPerRequest).toBeGreaterThanOrEqual(18);
    expect(burn!.cpuMsPerRequest - bare!.cpuMsPerRequest).toBeGreaterThanOrEqual(15);
  });

  it("rotates over a target's paths and sends a cookie, so the response cache never answers", async () => {
    seen.length = 0;
    await measureRenderCpu(base, process.pid, [{ name: "burn", paths: ["/burn/a", "/burn/b"] }], 1);
    expect(seen.map((s) => s.url)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? "/burn/a" : "/burn/b")));
    expect(new Set(seen.map((s) => s.cookie))).toEqual(new Set(["gapwatch-bench=render-cpu"]));
  });

  it("says null for a process it cannot read", async () => {
    expect(await measureRenderCpu(base, 2 ** 22 + 12_345, [{ name: "bare", paths: ["/bare"] }], 1)).toBeNull();
  });
});
