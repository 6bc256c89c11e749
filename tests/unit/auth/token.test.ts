import { describe, expect, it } from "vitest";
import { constantTimeEqual, createSessionToken, sessionLifetimeMs, verifySessionToken } from "@/lib/auth/token";

const secret = "unit-test-admin-secret";
const now = 1_800_000_000_000;

describe("session tokens", () => {
  it("verifies a token it signed and reports when it expires (8 h later)", () => {
    const token = createSessionToken(secret, now);
    const nonce = token.split(".")[2];
    expect(verifySessionToken(token, secret, now + 1000)).toEqual({ role: "admin", expiresAt: now + sessionLifetimeMs, sessionId: nonce });
    expect(sessionLifetimeMs).toBe(8 * 60 * 60 * 1000);
  });

  it("rejects a token once it has expired", () => {
    const token = createSessionToken(secret, now);
    expect(verifySessionToken(token, secret, now + sessionLifetimeMs - 1)).not.toBeNull();
    expect(verifySessionToken(token, secret, now + sessionLifetimeMs)).toBeNull();
  });

  it("rejects a token signed with another secret (rotating the secret ends every session)", () => {
    const token = createSessionToken("another-admin-secret", now);
    expect(verifySessionToken(token, secret, now)).toBeNull();
  });

  it("rejects a token whose expiry was pushed back by hand", () => {
    const [v, exp, nonce, sig] = createSessionToken(secret, now).split(".");
    const forged = [v, String(Number(exp) + sessionLifetimeMs), nonce, sig].join(".");
    expect(verifySessionToken(forged, secret, now)).toBeNull();
  });

  it("rejects malformed tokens without throwing", () => {
    for (const bad of ["", "v1", "v1.x.y.z", "v2.1.2.3", "v1.99999999999999.nonce.", "a.b.c.d.e", "v1..nonce.sig"]) {
      expect(verifySessionToken(bad, secret, now)).toBeNull();
    }
  });

  it("makes a different token each time (random nonce)", () => {
    expect(createSessionToken(secret, now)).not.toBe(createSessionToken(secret, now));
  });
});

describe("constantTimeEqual", () => {
  it("is true only for identical strings, whatever their lengths", () => {
    expect(constantTimeEqual("same-secret", "same-secret")).toBe(true);
    expect(constantTimeEqual("same-secret", "same-secreT")).toBe(false);
    expect(constantTimeEqual("short", "a much longer string")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});
