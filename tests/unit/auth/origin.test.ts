import { describe, expect, it } from "vitest";
import { ForbiddenError } from "@/lib/auth/errors";
import { assertJsonBody, assertSameOrigin, assertSameOriginJson } from "@/lib/auth/origin";
import { errorCodes, httpStatusOf } from "@/lib/errors";

const headers = (h: Record<string, string>) => new Headers(h);

describe("assertSameOrigin", () => {
  it("accepts an Origin naming this host (with port)", () => {
    expect(() => assertSameOrigin(headers({ host: "localhost:3070", origin: "http://localhost:3070" }))).not.toThrow();
  });

  it("falls back to the Referer when there is no Origin", () => {
    expect(() => assertSameOrigin(headers({ host: "gapwatch.example", referer: "https://gapwatch.example/connect" }))).not.toThrow();
  });

  it("refuses a foreign Origin with a 403 ForbiddenError", () => {
    const attempt = () => assertSameOrigin(headers({ host: "localhost:3070", origin: "https://evil.example" }));
    expect(attempt).toThrow(ForbiddenError);
    try {
      attempt();
    } catch (err) {
      expect(httpStatusOf(err)).toBe(403);
      expect((err as ForbiddenError).code).toBe(errorCodes.forbidden);
    }
  });

  it("refuses a different port on the same host name", () => {
    expect(() => assertSameOrigin(headers({ host: "localhost:3070", origin: "http://localhost:4000" }))).toThrow(ForbiddenError);
  });

  it("refuses requests with neither Origin nor Referer, an opaque 'null' Origin, or no Host", () => {
    expect(() => assertSameOrigin(headers({ host: "localhost:3070" }))).toThrow(ForbiddenError);
    expect(() => assertSameOrigin(headers({ host: "localhost:3070", origin: "null" }))).toThrow(ForbiddenError);
    expect(() => assertSameOrigin(headers({ origin: "http://localhost:3070" }))).toThrow(ForbiddenError);
  });

  it("refuses an unparsable Origin", () => {
    expect(() => assertSameOrigin(headers({ host: "localhost:3070", origin: "not a url" }))).toThrow(/unreadable Origin/);
  });
});

describe("assertJsonBody", () => {
  it("accepts application/json with or without parameters", () => {
    expect(() => assertJsonBody(headers({ "content-type": "application/json" }))).not.toThrow();
    expect(() => assertJsonBody(headers({ "content-type": "application/json; charset=utf-8" }))).not.toThrow();
  });

  it("refuses the content types an HTML form on another site can send", () => {
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", "application/jsonp"]) {
      expect(() => assertJsonBody(headers({ "content-type": type }))).toThrow(ForbiddenError);
    }
    expect(() => assertJsonBody(headers({}))).toThrow(/got "none"/);
  });

  it("checks origin before content type", () => {
    expect(() => assertSameOriginJson(headers({ host: "a:1", origin: "http://b:1", "content-type": "text/plain" }))).toThrow(/cross-site/);
  });
});
