import type { ServerConfig } from "@/lib/config/server";

/** Loopback names every server answers to, on any port (the demo, health checks on the machine itself). */
const loopbackHosts = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The Host header values the server answers: `server.allowedHosts`, or by default publicUrl's host plus loopback.
 * An entry without a port matches any port. Anything else — the domain of a DNS-rebinding page — is refused.
 */
export function allowedHostPatterns(server: ServerConfig): string[] {
  if (server.allowedHosts) return server.allowedHosts.map((h) => h.toLowerCase());
  const fromUrl = server.publicUrl ? [new URL(server.publicUrl).host.toLowerCase()] : [];
  return [...fromUrl, ...loopbackHosts];
}

/** True when `host` (a Host header value) matches one of the patterns. */
export function isHostAllowed(host: string | null, patterns: readonly string[]): boolean {
  if (!host) return false;
  const value = host.toLowerCase();
  const name = value.replace(/:\d{1,5}$/, "");
  return patterns.some((pattern) => pattern === value || (!/(^[^[]*:|\]:)\d+$/.test(pattern) && pattern === name));
}
