import { describe, expect, it } from "vitest";
import { defaultSignInLimits, SignInLimiter } from "@/lib/auth/sign-in-limiter";

const now = 1_800_000_000_000;

describe("SignInLimiter", () => {
  it("lets 5 wrong secrets through, then doubles the wait: 1 s, 2 s, 4 s … capped at 15 min", () => {
    const limiter = new SignInLimiter();
    for (let i = 0; i < 5; i++) {
      expect(limiter.waitMs("198.51.100.7", now)).toBe(0);
      limiter.recordFailure("198.51.100.7", now);
    }
    expect(limiter.waitMs("198.51.100.7", now)).toBe(0);
    const waits: number[] = [];
    let t = now;
    for (let i = 0; i < 12; i++) {
      limiter.recordFailure("198.51.100.7", t);
      waits.push(limiter.waitMs("198.51.100.7", t));
      t += limiter.waitMs("198.51.100.7", t);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 900_000, 900_000]);
    expect(limiter.waitMs("198.51.100.7", t - 1)).toBe(1);
    expect(limiter.waitMs("198.51.100.7", t)).toBe(0);
  });

  it("keeps addresses apart, and a right secret clears one", () => {
    const limiter = new SignInLimiter({ ...defaultSignInLimits, freeFailures: 0 });
    limiter.recordFailure("198.51.100.7", now);
    expect(limiter.waitMs("198.51.100.7", now)).toBe(1000);
    expect(limiter.waitMs("198.51.100.8", now)).toBe(0);
    limiter.recordSuccess("198.51.100.7");
    expect(limiter.waitMs("198.51.100.7", now)).toBe(0);
  });

  it("holds at most maxEntries addresses, forgetting the one that failed least recently", () => {
    const limiter = new SignInLimiter({ ...defaultSignInLimits, freeFailures: 0, maxEntries: 3 });
    ["a", "b", "c"].forEach((address, i) => limiter.recordFailure(address, now + i));
    limiter.recordFailure("a", now + 10);
    limiter.recordFailure("d", now + 11);
    expect(limiter.size).toBe(3);
    expect(["a", "b", "c", "d"].map((address) => limiter.waitMs(address, now + 11) > 0)).toEqual([true, false, true, true]);
    for (let i = 0; i < 10_000; i++) limiter.recordFailure(`10.0.${i >> 8}.${i & 255}`, now + 20 + i);
    expect(limiter.size).toBe(3);
  });
});
