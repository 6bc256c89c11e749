import { describe, expect, it } from "vitest";
import { handleRoute, jsonResponse, parseTimeParam, toJson } from "@/lib/api/json";
import { BadRequestError, ConnectApiError, NotFoundError } from "@/lib/errors";

describe("toJson", () => {
  it("writes bigints as decimal strings at any depth, keeping them exact above 2^53", () => {
    const value = { lag: 12n, partitions: [{ offset: 9007199254740993n, nested: { min: -1n } }], name: "orders", n: 3, none: null };
    expect(toJson(value)).toBe('{"lag":"12","partitions":[{"offset":"9007199254740993","nested":{"min":"-1"}}],"name":"orders","n":3,"none":null}');
  });

  it("writes a top-level bigint as a JSON string", () => {
    expect(toJson(0n)).toBe('"0"');
  });
});

describe("jsonResponse", () => {
  it("answers JSON that is never cached, with the given status and extra headers", async () => {
    const res = jsonResponse({ lag: 5n }, 202, { "x-gapwatch-cycle": "7" });
    expect(res.status).toBe(202);
    expect([res.headers.get("content-type"), res.headers.get("cache-control"), res.headers.get("x-gapwatch-cycle")]).toEqual([
      "application/json; charset=utf-8",
      "no-store",
      "7",
    ]);
    expect(await res.text()).toBe('{"lag":"5"}');
  });
});

describe("handleRoute", () => {
  it("returns the handler's response when it succeeds", async () => {
    const res = await handleRoute(async () => jsonResponse({ ok: true }));
    expect([res.status, await res.json()]).toEqual([200, { ok: true }]);
  });

  it("accepts a handler that returns synchronously", async () => {
    const res = await handleRoute(() => jsonResponse({ ok: 1 }, 201));
    expect(res.status).toBe(201);
  });

  it("answers 400 with the message and GW_BAD_REQUEST for a BadRequestError", async () => {
    const res = await handleRoute(() => {
      throw new BadRequestError('partition must be a non-negative integer, got "x"');
    });
    expect([res.status, await res.json()]).toEqual([400, { error: 'partition must be a non-negative integer, got "x"', code: "GW_BAD_REQUEST" }]);
  });

  it("maps other typed errors to their status: 404 for NotFoundError, 502 for ConnectApiError", async () => {
    const notFound = await handleRoute(async () => {
      throw new NotFoundError('no flow "a->b"');
    });
    const connect = await handleRoute(async () => {
      throw new ConnectApiError("http://connect:8083/connectors", 500, "Kafka Connect GET http://connect:8083/connectors answered 500: boom");
    });
    expect([notFound.status, await notFound.json()]).toEqual([404, { error: 'no flow "a->b"', code: "GW_NOT_FOUND" }]);
    expect([connect.status, await connect.json()]).toEqual([
      502,
      { error: "Kafka Connect GET http://connect:8083/connectors answered 500: boom", code: "GW_CONNECT_API" },
    ]);
  });

  it("answers 500 without leaking the message of an unexpected error", async () => {
    const res = await handleRoute(async () => {
      throw new Error("password=hunter2 in /srv/secret.yaml");
    });
    const text = await res.text();
    expect([res.status, JSON.parse(text)]).toEqual([500, { error: "internal error; see the server log" }]);
    expect(text.includes("hunter2")).toBe(false);
  });

  it("answers 500 for a thrown non-Error value", async () => {
    const res = await handleRoute(() => {
      throw "string thrown";
    });
    expect([res.status, await res.json()]).toEqual([500, { error: "internal error; see the server log" }]);
  });
});

describe("parseTimeParam", () => {
  const params = (query: string) => new URLSearchParams(query);

  it("reads epoch milliseconds", () => {
    expect(parseTimeParam(params("from=1736910000000"), "from", 0)).toBe(1736910000000);
  });

  it("reads an ISO date", () => {
    expect(parseTimeParam(params("to=2025-01-15T03:00:00Z"), "to", 0)).toBe(Date.UTC(2025, 0, 15, 3, 0, 0));
    expect(parseTimeParam(params("to=2025-01-15T04:00:00%2B01:00"), "to", 0)).toBe(Date.UTC(2025, 0, 15, 3, 0, 0));
  });

  it("returns the fallback when the parameter is absent or empty", () => {
    expect(parseTimeParam(params(""), "from", 42)).toBe(42);
    expect(parseTimeParam(params("from="), "from", 43)).toBe(43);
  });

  it.each([["yesterday"], ["2025-13-01"], ["12abc"]])("rejects %s with a BadRequestError naming the parameter and the value", (raw) => {
    expect(() => parseTimeParam(params(`from=${raw}`), "from", 0)).toThrow(BadRequestError);
    expect(() => parseTimeParam(params(`from=${raw}`), "from", 0)).toThrow(`query parameter "from" must be epoch milliseconds or an ISO date, got "${raw}"`);
  });
});
