import { describe, expect, it } from "vitest";
import { MalformedRecordError } from "@/lib/mm2/errors";
import { encodeInt64, encodeString, isInt64, ProtocolReader } from "@/lib/mm2/protocol-types";

const hex = (spaced: string): Buffer => Buffer.from(spaced.replace(/ /g, ""), "hex");

describe("ProtocolReader", () => {
  it("reads big-endian integers and strings in sequence", () => {
    const reader = new ProtocolReader(hex("fffe 00000007 8000000000000000 0002 6869"), "t");
    expect(reader.readInt16("a")).toBe(-2);
    expect(reader.readInt32("b")).toBe(7);
    expect(reader.readInt64("c")).toBe(-9223372036854775808n);
    expect(reader.readString("d")).toBe("hi");
    expect(() => reader.expectEnd()).not.toThrow();
  });

  it("reads an empty string", () => {
    expect(new ProtocolReader(Buffer.from("0000", "hex"), "t").readString("s")).toBe("");
  });

  it("throws MalformedRecordError, never RangeError, on every short read", () => {
    for (const read of ["readInt16", "readInt32", "readInt64", "readString"] as const) {
      const reader = new ProtocolReader(Buffer.from("00", "hex"), "part");
      expect(() => reader[read]("f")).toThrow(MalformedRecordError);
    }
  });

  it("names the record part, field and offset in a truncation reason", () => {
    const reader = new ProtocolReader(hex("0005 6869"), "Key");
    expect(() => reader.readString("topic")).toThrow("Key truncated reading topic: needs 5 byte(s) at offset 2, 2 left");
  });
});

describe("protocol encoders", () => {
  it("encode INT64 big-endian and STRING with an INT16 length", () => {
    expect(encodeInt64(1n).toString("hex")).toBe("0000000000000001");
    expect(encodeString("é").toString("hex")).toBe("0002c3a9");
  });

  it("know the int64 range", () => {
    expect(isInt64((1n << 63n) - 1n)).toBe(true);
    expect(isInt64(1n << 63n)).toBe(false);
    expect(isInt64(-(1n << 63n))).toBe(true);
  });
});
