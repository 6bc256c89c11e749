import { BlockList, isIP } from "node:net";
import type { ProxyAuthConfig } from "@/lib/config/server";
import { normalizeAddress, readPeerAddress } from "./client-address";

export type Role = "admin" | "viewer";

/** Who a request is, and how we know: a signed session cookie (admin) or a trusted proxy's user header. */
export interface Identity {
  role: Role;
  via: "session" | "proxy";
  user: string | null;
}

const listCache = new WeakMap<readonly string[], BlockList>();

/** The trusted proxies as Node's BlockList (matches addresses and CIDR blocks of both families). */
function trustedList(entries: readonly string[]): BlockList {
  let list = listCache.get(entries);
  if (!list) {
    list = new BlockList();
    for (const entry of entries) {
      const [address, prefix] = entry.split("/") as [string, string | undefined];
      const family = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    }
    listCache.set(entries, list);
  }
  return list;
}

export function isTrustedProxy(address: string | null, config: ProxyAuthConfig | undefined): boolean {
  if (!address || !config) return false;
  return trustedList(config.trustedProxies).check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

/**
 * The identity a trusted proxy asserts, or null: the peer is not a trusted proxy (then its headers are ignored),
 * or it names no user. Roles: `rolesHeader` (comma- or space-separated) holding `adminRole`, or a user listed in
 * `adminUsers`, is an admin; every other user a viewer.
 */
export function readProxyIdentity(headers: Headers, config: ProxyAuthConfig | undefined): Identity | null {
  if (!config || !isTrustedProxy(readPeerAddress(headers), config)) return null;
  const user = headers.get(config.userHeader)?.trim();
  if (!user) return null;
  const roles = config.rolesHeader ? (headers.get(config.rolesHeader) ?? "").split(/[\s,]+/) : [];
  const admin = roles.includes(config.adminRole) || config.adminUsers.includes(user);
  return { role: admin ? "admin" : "viewer", via: "proxy", user };
}

/**
 * The client's address for rate limiting: the peer, or — when the peer is a trusted proxy — the nearest address in
 * `x-forwarded-for` (read right to left) that is not itself a trusted proxy. "unknown" when there is no peer stamp.
 */
export function readClientAddress(headers: Headers, config: ProxyAuthConfig | undefined): string {
  const peer = readPeerAddress(headers);
  if (!peer) return "unknown";
  if (!isTrustedProxy(peer, config)) return peer;
  for (const entry of (headers.get("x-forwarded-for") ?? "").split(",").reverse()) {
    const address = normalizeAddress(entry);
    if (address === null) break;
    if (!isTrustedProxy(address, config)) return address;
  }
  return peer;
}
