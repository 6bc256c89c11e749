import { describe, expect, it } from "vitest";
import { ForeignRecordError, MalformedRecordError } from "@/lib/mm2/errors";

describe("MM2 record errors", () => {
  it("carry the reason separately from the message, with a stable code", () => {
    const error = new MalformedRecordError("OffsetSync value must be 16 bytes, got 12");
    expect(error.reason).toBe("OffsetSync value must be 16 bytes, got 12");
    expect(error.message).toBe("Malformed MM2 record: OffsetSync value must be 16 bytes, got 12");
    expect(error.code).toBe("GW_MALFORMED_RECORD");
    expect(error.name).toBe("MalformedRecordError");
  });

  it("make foreign records a kind of malformed record with their own code", () => {
    const error = new ForeignRecordError("another connector");
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect(error.code).toBe("GW_FOREIGN_RECORD");
    expect(error.name).toBe("ForeignRecordError");
  });
});
