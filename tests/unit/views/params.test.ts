import { describe, expect, it } from "vitest";
import { BadRequestError } from "@/lib/errors";
import { decodeFlowParam, encodeFlowId, parsePartitionParam } from "@/lib/views/params";

describe("decodeFlowParam", () => {
  it("decodes the URL-encoded arrow", () => {
    expect(decodeFlowParam("east-%3Ewest")).toBe("east->west");
    expect(decodeFlowParam("east-%3ewest")).toBe("east->west");
  });

  it("accepts an id that is already decoded", () => {
    expect(decodeFlowParam("east->west")).toBe("east->west");
  });

  it("accepts aliases with digits, dots, underscores and dashes", () => {
    expect(decodeFlowParam("dc-1.eu_west-%3Edc-2.us")).toBe("dc-1.eu_west->dc-2.us");
  });

  it.each([["bogus"], ["east->"], ["->west"], ["east->west->north"], ["east%20x->west"], ["east-%3E"]])("rejects %s with a BadRequestError", (raw) => {
    expect(() => decodeFlowParam(raw)).toThrow(BadRequestError);
  });

  it("quotes the decoded value in the error", () => {
    expect(() => decodeFlowParam("bogus")).toThrow('flow must look like <source>-><target> (URL-encoded: east-%3Ewest), got "bogus"');
  });

  // Regression (was a bug in lib/views/params.ts, decodeFlowParam): decodeURIComponent throws URIError on a malformed escape,
  // which is not a GapwatchError, so handleRoute answers 500 instead of 400.
  it("rejects a malformed percent escape with a BadRequestError, not a URIError", () => {
    expect(() => decodeFlowParam("east-%E0%A4%A")).toThrow(BadRequestError);
  });

  it("round-trips with encodeFlowId", () => {
    expect(encodeFlowId("east->west")).toBe("east-%3Ewest");
    expect(decodeFlowParam(encodeFlowId("east->west"))).toBe("east->west");
  });
});

describe("parsePartitionParam", () => {
  it("reads non-negative integers, leading zeros included", () => {
    expect([parsePartitionParam("0"), parsePartitionParam("17"), parsePartitionParam("007"), parsePartitionParam("999999999")]).toEqual([0, 17, 7, 999999999]);
  });

  it.each([["-1"], ["1.5"], ["x"], [""], [" 1"], ["1234567890"]])("rejects %j with a BadRequestError", (raw) => {
    expect(() => parsePartitionParam(raw)).toThrow(BadRequestError);
    expect(() => parsePartitionParam(raw)).toThrow(`partition must be a non-negative integer, got "${raw}"`);
  });
});
