import { describe, expect, it } from "vitest";
import { normalizeAddress, peerHeader, readPeerAddress } from "@/lib/auth/client-address";
import { isTrustedProxy, readClientAddress, readProxyIdentity } from "@/lib/auth/proxy-auth";
import type { ProxyAuthConfig } from "@/lib/config/server";
import { withPeerRequest } from "./peer-request";

const viaLoopbackProxy: ProxyAuthConfig = {
  trustedProxies: ["127.0.0.0/8"],
  userHeader: "x-forwarded-user",
  rolesHeader: "x-forwarded-groups",
  adminRole: "gapwatch-admin",
  adminUsers: ["root@example.com"],
};
const viaOtherProxy: ProxyAuthConfig = { ...viaLoopbackProxy, trustedProxies: ["10.1.2.3", "fd00::/8"] };

describe("peer address stamp", () => {
  it("stamps the socket's address on every request, overwriting what the client sent", async () => {
    const peer = await withPeerRequest("http://localhost/api/flows", { headers: { [peerHeader]: "forged 10.1.2.3" } }, (r) => readPeerAddress(r.headers));
    expect(peer).toBe("127.0.0.1");
  });

  it("ignores a peer header that does not carry this process's stamp", () => {
    expect(readPeerAddress(new Headers({ [peerHeader]: "0123456789abcdef0123456789abcdef 10.1.2.3" }))).toBeNull();
    expect(readPeerAddress(new Headers())).toBeNull();
  });

  it("normalizes IPv4-mapped IPv6 and refuses what is not an address", () => {
    expect(normalizeAddress("::ffff:10.0.0.7")).toBe("10.0.0.7");
    expect(normalizeAddress("[::1]")).toBe("::1");
    expect(normalizeAddress(" 192.168.1.9 ")).toBe("192.168.1.9");
    expect(normalizeAddress("evil.example")).toBeNull();
  });
});

describe("trusted proxies", () => {
  it("matches addresses and CIDR blocks of both families", () => {
    expect(isTrustedProxy("10.1.2.3", viaOtherProxy)).toBe(true);
    expect(isTrustedProxy("10.1.2.4", viaOtherProxy)).toBe(false);
    expect(isTrustedProxy("fd00::17", viaOtherProxy)).toBe(true);
    expect(isTrustedProxy("fe80::1", viaOtherProxy)).toBe(false);
    expect(isTrustedProxy(null, viaOtherProxy)).toBe(false);
    expect(isTrustedProxy("10.1.2.3", undefined)).toBe(false);
  });

  it("maps a trusted proxy's user to admin by role or by name, else viewer", async () => {
    const read = (headers: Record<string, string>) => withPeerRequest("http://localhost/", { headers }, (r) => readProxyIdentity(r.headers, viaLoopbackProxy));
    expect(await read({ "x-forwarded-user": "ann", "x-forwarded-groups": "ops, gapwatch-admin" })).toEqual({ role: "admin", via: "proxy", user: "ann" });
    expect(await read({ "x-forwarded-user": "root@example.com" })).toEqual({ role: "admin", via: "proxy", user: "root@example.com" });
    expect(await read({ "x-forwarded-user": "bob", "x-forwarded-groups": "ops" })).toEqual({ role: "viewer", via: "proxy", user: "bob" });
    expect(await read({ "x-forwarded-groups": "gapwatch-admin" })).toBeNull();
  });

  it("ignores the user headers of a peer that is not a trusted proxy", async () => {
    const identity = await withPeerRequest(
      "http://localhost/",
      { headers: { "x-forwarded-user": "root@example.com", "x-forwarded-groups": "gapwatch-admin", "x-forwarded-for": "10.1.2.3" } },
      (r) => readProxyIdentity(r.headers, viaOtherProxy),
    );
    expect(identity).toBeNull();
  });
});

describe("client address for rate limiting", () => {
  it("is the peer unless the peer is a trusted proxy; then the nearest untrusted x-forwarded-for entry", async () => {
    const spoofed = { "x-forwarded-for": "203.0.113.9" };
    expect(await withPeerRequest("http://localhost/", { headers: spoofed }, (r) => readClientAddress(r.headers, viaOtherProxy))).toBe("127.0.0.1");
    const chain = { "x-forwarded-for": "203.0.113.9, 198.51.100.4, 127.0.0.5" };
    expect(await withPeerRequest("http://localhost/", { headers: chain }, (r) => readClientAddress(r.headers, viaLoopbackProxy))).toBe("198.51.100.4");
    const garbage = { "x-forwarded-for": "203.0.113.9, not-an-address" };
    expect(await withPeerRequest("http://localhost/", { headers: garbage }, (r) => readClientAddress(r.headers, viaLoopbackProxy))).toBe("127.0.0.1");
    expect(readClientAddress(new Headers(spoofed), viaLoopbackProxy)).toBe("unknown");
  });
});
