import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { stripUrlUserInfo, stripUserInfoDeep } from "@/lib/logger/redact";

describe("stripUrlUserInfo", () => {
  it("removes user-info from every URL in a text and leaves the rest as it was", () => {
    expect(stripUrlUserInfo("Kafka Connect GET http://admin:Zq9-pass@connect:8083/connectors failed; see https://h:1/x"))
      .toBe("Kafka Connect GET http://connect:8083/connectors failed; see https://h:1/x");
    expect(stripUrlUserInfo("postgres://gw:p%40ss@db:5432/gapwatch and http://token@hooks.example/a@b"))
      .toBe("postgres://db:5432/gapwatch and http://hooks.example/a@b");
    expect(stripUrlUserInfo("mail ops@example.com, no URL here")).toBe("mail ops@example.com, no URL here");
  });

  it("walks log arguments: strings in objects and arrays, and Errors", () => {
    const err = new Error("connect ECONNREFUSED http://u:secret-7@10.0.0.1:8083");
    expect(stripUserInfoDeep({ url: "http://u:p@h", list: ["https://a:b@c/d"], n: 3, err })).toEqual({
      url: "http://h",
      list: ["https://c/d"],
      n: 3,
      err: { type: "Error", message: "connect ECONNREFUSED http://10.0.0.1:8083", stack: expect.not.stringContaining("secret-7") as unknown },
    });
  });
});

describe("logger", () => {
  it("never writes a URL's user-info, whatever the caller passes", async () => {
    const { getLogger, logger } = await import("@/lib/logger");
    const stream = (logger as unknown as Record<symbol, { write(chunk: string): boolean }>)[pino.symbols.streamSym]!;
    const written: string[] = [];
    const spy = vi.spyOn(stream, "write").mockImplementation((chunk: string) => {
      written.push(chunk);
      return true;
    });
    try {
      getLogger("unit").error({ err: new Error("GET http://bob:Hunter2-log@connect:8083/x failed"), target: "https://k:Hunter2-log@hooks/x" }, "failed http://m:Hunter2-log@q");
    } finally {
      spy.mockRestore();
    }
    const text = written.join("");
    expect(text).toContain('"msg":"failed http://q"');
    expect(text).toContain("http://connect:8083/x");
    expect(text).not.toContain("Hunter2-log");
  });
});

describe("API error answers", () => {
  it("quote URLs without their user-info", async () => {
    const { handleRoute } = await import("@/lib/api/json");
    const { ConnectApiError } = await import("@/lib/errors");
    const response = await handleRoute(() => {
      throw new ConnectApiError("http://c:8083", 401, "Kafka Connect GET http://ops:Hunter2-api@c:8083/connectors answered 401: Unauthorized");
    });
    expect([response.status, await response.json()]).toEqual([502, { error: "Kafka Connect GET http://c:8083/connectors answered 401: Unauthorized", code: "GW_CONNECT_API" }]);
  });
});
