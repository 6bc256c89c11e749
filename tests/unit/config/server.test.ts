import { describe, expect, it } from "vitest";
import { connectSchema } from "@/lib/config/schema";
import { serverSchema } from "@/lib/config/server";

function issuesOf(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): string[] {
  return (result.error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("server config", () => {
  it("defaults to reads open and no proxy authentication", () => {
    expect(serverSchema.parse({})).toEqual({ requireSignInForReads: false, responseCacheMs: 5000 });
  });

  it("fills proxyAuth's defaults and accepts addresses and CIDR blocks of both families", () => {
    expect(serverSchema.parse({ proxyAuth: { trustedProxies: ["10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1"] } }).proxyAuth).toEqual({
      trustedProxies: ["10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1"],
      userHeader: "x-forwarded-user",
      adminRole: "gapwatch-admin",
      adminUsers: [],
    });
  });

  it("names the field of a bad proxy address, host pattern or public URL", () => {
    const result = serverSchema.safeParse({
      publicUrl: "ftp://gw",
      allowedHosts: ["gw.example.com", "gw example"],
      proxyAuth: { trustedProxies: ["10.0.0.0/33", "proxy.local", "fd00::/129"] },
    });
    expect(issuesOf(result)).toEqual([
      "publicUrl: must be an http(s) URL such as https://gapwatch.example.com",
      "allowedHosts.1: must be a host name or address, optionally with :port",
      "proxyAuth.trustedProxies.0: must be an IP address or a CIDR block such as 10.0.0.0/8 or fd00::/8",
      "proxyAuth.trustedProxies.1: must be an IP address or a CIDR block such as 10.0.0.0/8 or fd00::/8",
      "proxyAuth.trustedProxies.2: must be an IP address or a CIDR block such as 10.0.0.0/8 or fd00::/8",
    ]);
  });
});

describe("Connect URL with user-info", () => {
  it("moves the credentials into basic auth so the URL never carries them", () => {
    expect(connectSchema.parse({ name: "mm2", url: "http://conn%40user:p%3Ass@connect:8083" })).toEqual({
      name: "mm2",
      url: "http://connect:8083",
      auth: { username: "conn@user", password: "p:ss" },
      timeoutMs: 5000,
    });
  });

  it("keeps an explicit auth and still strips the URL", () => {
    const parsed = connectSchema.parse({ name: "mm2", url: "https://u:p@connect:8443/base", auth: { username: "real", password: "pw" } });
    expect([parsed.url, parsed.auth]).toEqual(["https://connect:8443/base", { username: "real", password: "pw" }]);
  });
});
