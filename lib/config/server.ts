import { isIP } from "node:net";
import { z } from "zod";

/** An IPv4/IPv6 address or CIDR block (`10.0.0.0/8`, `::1/128`); the prefix must fit the address family. */
const addressOrCidrSchema = z.string().refine((text) => {
  const [address, prefix, ...rest] = text.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}, "must be an IP address or a CIDR block such as 10.0.0.0/8 or fd00::/8");

/** A Host header value to accept: `name` (any port) or `name:port`; IPv6 in brackets (`[::1]`). */
const hostPatternSchema = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, "must be a host name or address, optionally with :port");

/**
 * Trusted reverse-proxy authentication (as oauth2-proxy or an nginx auth_request setup do): a request whose peer
 * address is in `trustedProxies` names its user in `userHeader`; it is an admin when `rolesHeader` lists `adminRole`
 * or the user is in `adminUsers`, else a viewer. From any other address these headers are ignored.
 */
const proxyAuthSchema = z.object({
  trustedProxies: z.array(addressOrCidrSchema).min(1, "list the address (or CIDR) of the proxy that authenticates users"),
  userHeader: z.string().regex(/^[A-Za-z0-9-]+$/, "must be a header name").default("x-forwarded-user"),
  rolesHeader: z.string().regex(/^[A-Za-z0-9-]+$/, "must be a header name").optional(),
  adminRole: z.string().min(1).default("gapwatch-admin"),
  adminUsers: z.array(z.string().min(1)).default([]),
}).strict();

/**
 * Who may reach the server and how. `allowedHosts` defaults to publicUrl's host plus localhost, 127.0.0.1 and [::1]
 * on any port: a request naming another Host is refused (a DNS-rebinding page names its own domain).
 */
export const serverSchema = z.object({
  /** The URL users open, e.g. https://gapwatch.example.com (its host is allowed). */
  publicUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://gapwatch.example.com" }).optional(),
  allowedHosts: z.array(hostPatternSchema).min(1).optional(),
  /** Pages redirect to /signin and the API answers 401 until the user signs in (or the proxy names them). */
  requireSignInForReads: z.boolean().default(false),
  proxyAuth: proxyAuthSchema.optional(),
  /**
   * Anonymous reads of pages and the read-only API are answered from memory for up to this long (and never past the
   * next cycle), so many viewers of one page cost one render a cycle (lib/api/response-cache.ts); 0 turns it off.
   * What a cycle does not change on a page is its ages ("updated 3 s ago", the STALE mark after a minute without a
   * cycle): a cached answer shows them at most this late. 5 s: a render per URL about once a cycle at the usual
   * 5–10 s polls (at 1 s, the flow page's ten renders in a 10 s load at 10,000 partitions set its p99).
   */
  responseCacheMs: z.number().int().min(0).max(60_000, "keep it within a poll interval: at most 60000 ms").default(5000),
}).strict();

export type ServerConfig = z.infer<typeof serverSchema>;
export type ProxyAuthConfig = z.infer<typeof proxyAuthSchema>;
