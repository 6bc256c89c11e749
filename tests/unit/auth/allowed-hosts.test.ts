import { describe, expect, it } from "vitest";
import { allowedHostPatterns, isHostAllowed } from "@/lib/auth/allowed-hosts";

describe("allowed hosts", () => {
  it("defaults to the public URL's host and loopback on any port", () => {
    const patterns = allowedHostPatterns({ publicUrl: "https://gapwatch.example.com", requireSignInForReads: false, responseCacheMs: 5000 });
    expect(patterns).toEqual(["gapwatch.example.com", "localhost", "127.0.0.1", "[::1]"]);
    for (const host of ["gapwatch.example.com", "GAPWATCH.example.com:443", "localhost:3000", "127.0.0.1:3315", "[::1]:80", "[::1]"]) {
      expect([host, isHostAllowed(host, patterns)]).toEqual([host, true]);
    }
    for (const host of ["rebind.attacker.example", "rebind.attacker.example:3000", "gapwatch.example.com.attacker.example", "10.0.0.5:3000", "", null]) {
      expect([host, isHostAllowed(host, patterns)]).toEqual([host, false]);
    }
  });

  it("takes server.allowedHosts as given: a port in an entry must match exactly", () => {
    const patterns = allowedHostPatterns({ allowedHosts: ["gw.internal:8443", "Dash.Example"], requireSignInForReads: false, responseCacheMs: 5000 });
    expect(patterns).toEqual(["gw.internal:8443", "dash.example"]);
    expect(isHostAllowed("gw.internal:8443", patterns)).toBe(true);
    expect(isHostAllowed("gw.internal:8444", patterns)).toBe(false);
    expect(isHostAllowed("gw.internal", patterns)).toBe(false);
    expect(isHostAllowed("dash.example:9000", patterns)).toBe(true);
    expect(isHostAllowed("localhost:3000", patterns)).toBe(false);
  });
});
