import http from "node:http";
import { getConfig } from "@/lib/config";
import type { ReadModel } from "@/lib/pipeline/read-model";
import { getServingRuntime } from "@/lib/pipeline/runtime";
import { ResponseCache } from "./response-cache";
import { createTopicShellRoutes } from "./topic-shell-routes";

const installedKey = Symbol.for("gapwatch.responseCache");
type CachedPrototype = typeof http.Server.prototype & { [installedKey]?: ResponseCache<ReadModel> };
const serverPrototype = http.Server.prototype as CachedPrototype;

/**
 * Puts the response cache (response-cache.ts) in front of `next start`'s request listener: called once from
 * instrumentation.ts after the serving runtime started, it wraps the HTTP server's `emit` (as the peer stamp does,
 * client-address.ts), so a hit is answered before Next.js parses the request. Off with server.responseCacheMs 0.
 */
export function installResponseCache(): void {
  const server = getConfig().server;
  if (server.responseCacheMs === 0 || serverPrototype[installedKey]) return;
  const proxyHeaders = [server.proxyAuth?.userHeader, server.proxyAuth?.rolesHeader].filter((name) => name !== undefined);
  const cache = new ResponseCache({
    maxAgeMs: server.responseCacheMs,
    currentVersion: () => getServingRuntime().models.latest(),
    identityHeaders: ["cookie", "authorization", ...proxyHeaders.map((name) => name.toLowerCase())],
    shells: createTopicShellRoutes(),
  });
  serverPrototype[installedKey] = cache;
  const emit = serverPrototype.emit;
  serverPrototype.emit = function answerFromCache(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "request") return Reflect.apply(emit, this, [event, ...args]) as boolean;
    const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
    cache.handle(
      request,
      response,
      () => Reflect.apply(emit, this, [event, ...args]),
      (copy, copyResponse) => Reflect.apply(emit, this, [event, copy, copyResponse]),
    );
    return true;
  };
}
