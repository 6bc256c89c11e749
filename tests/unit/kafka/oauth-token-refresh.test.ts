import { describe, expect, it } from "vitest";
import { computeRefreshAtMs, createRefreshingTokenProvider, defaultRefreshTiming, type FetchedToken } from "@/lib/kafka/oauth/token-refresh";

const s = 1000;

describe("computeRefreshAtMs (Kafka's ExpiringCredentialRefreshingLogin without jitter)", () => {
  it("refreshes a token living shorter than min period + buffer at the window factor of its lifetime", () => {
    // 30 s < 60 s + 300 s: both are ignored, 80% of 30 s.
    expect(computeRefreshAtMs(1_000_000, 1_000_000 + 30 * s, defaultRefreshTiming)).toBe(1_000_000 + 24 * s);
  });

  it("moves the refresh earlier to keep the buffer before expiry", () => {
    // MSK IAM: 900 s; 80% is 720 s, but 300 s of buffer means 600 s.
    expect(computeRefreshAtMs(0, 900 * s, defaultRefreshTiming)).toBe(600 * s);
  });

  it("uses the window factor when it leaves more than the buffer, e.g. one hour", () => {
    expect(computeRefreshAtMs(0, 3600 * s, defaultRefreshTiming)).toBe(2880 * s);
  });

  it("keeps the minimum period after obtaining the token", () => {
    // 400 s lifetime, factor 0.5 → 200 s; buffer 50 → latest 350; min period 250 → 250 s.
    expect(computeRefreshAtMs(0, 400 * s, { windowFactor: 0.5, minPeriodSeconds: 250, bufferSeconds: 50 })).toBe(250 * s);
  });
});

describe("createRefreshingTokenProvider", () => {
  function setUp(lifetimeMs: number) {
    let clock = 0;
    const fetched: number[] = [];
    let failNext = false;
    const fetchToken = async (): Promise<FetchedToken> => {
      if (failNext) {
        failNext = false;
        throw new Error("token endpoint down");
      }
      fetched.push(clock);
      return { token: `token-${fetched.length}`, expiresAtMs: clock + lifetimeMs };
    };
    const provider = createRefreshingTokenProvider({ cluster: "east", mechanism: "OAUTHBEARER" }, fetchToken, defaultRefreshTiming, () => clock);
    return {
      provider,
      fetched,
      advance: (ms: number) => (clock += ms),
      failOnce: () => (failNext = true),
    };
  }

  it("reuses the token until its refresh time, then fetches a new one", async () => {
    const t = setUp(30 * s);
    expect(await t.provider()).toBe("token-1");
    t.advance(23 * s);
    expect(await t.provider()).toBe("token-1");
    t.advance(1 * s);
    expect(await t.provider()).toBe("token-2");
    expect(t.fetched).toEqual([0, 24 * s]);
  });

  it("shares one request between connections authenticating at the same time", async () => {
    const t = setUp(30 * s);
    expect(await Promise.all([t.provider(), t.provider(), t.provider()])).toEqual(["token-1", "token-1", "token-1"]);
    expect(t.fetched).toHaveLength(1);
  });

  it("does not cache a failure: the next connection asks again", async () => {
    const t = setUp(30 * s);
    t.failOnce();
    await expect(t.provider()).rejects.toThrow("token endpoint down");
    expect(await t.provider()).toBe("token-1");
  });
});
