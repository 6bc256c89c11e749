import http from "node:http";
import type { AddressInfo } from "node:net";
import { installPeerAddressStamp } from "@/lib/auth/client-address";

/**
 * Sends one real HTTP request from 127.0.0.1 to a server in this process with the peer stamp installed (as
 * instrumentation.ts does), turns what arrives into a fetch Request as Next does, and returns `run`'s result.
 */
export async function withPeerRequest<T>(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }, run: (request: Request) => T | Promise<T>): Promise<T> {
  installPeerAddressStamp();
  let result: { value: T } | { error: unknown } | null = null;
  const server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    // fetch always sends its own Host; put back the one the test means the browser to send.
    if (init.headers?.host) headers.set("host", init.headers.host);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = chunks.length > 0 ? Buffer.concat(chunks).toString() : undefined;
      Promise.resolve()
        .then(() => run(new Request(url, { method: req.method, headers, body })))
        .then((value) => (result = { value }), (error: unknown) => (result = { error }))
        .finally(() => res.end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: init.method ?? "GET", headers: init.headers, body: init.body });
    await response.arrayBuffer();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const settled = result as { value: T } | { error: unknown } | null;
  if (settled === null) throw new Error("the request never reached the handler");
  if ("error" in settled) throw settled.error;
  return settled.value;
}
