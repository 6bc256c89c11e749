import { describe, expect, it } from "vitest";
import { rejectErrorChallenge } from "@/lib/kafka/sasl";

/** What the validator hands back: the error, or the bytes it let through. */
function validate(authBytes: string): { error: Error | null; payload: Buffer | undefined } {
  let seen: { error: Error | null; payload: Buffer | undefined } | null = null;
  rejectErrorChallenge(Buffer.from(authBytes), (error, payload) => {
    expect(seen).toBeNull(); // called once
    seen = { error, payload };
  });
  return seen!;
}

describe("rejectErrorChallenge (RFC 7628 error challenge of a broker refusing the token)", () => {
  it("turns Kafka's invalid_token challenge into an error that says the broker refused the token", () => {
    const { error } = validate('{"status":"invalid_token"}');
    expect(error?.message).toBe('the broker refused the OAUTHBEARER token ({"status":"invalid_token"}); its log says which check failed');
  });

  it("lets an empty success through, and bytes that are not an error challenge", () => {
    expect(validate("")).toEqual({ error: null, payload: Buffer.from("") });
    expect(validate("not json").error).toBeNull();
    expect(validate('{"other":1}').error).toBeNull();
  });
});
