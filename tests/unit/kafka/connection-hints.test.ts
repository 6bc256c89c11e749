import { describe, expect, it } from "vitest";
import { explainConnectionFailure } from "@/lib/kafka/connection-hints";
import { resolveConnection } from "@/lib/kafka/options";
import { explainTlsFailure, findTlsCode, toNodeTlsOptions } from "@/lib/tls";

/** An error as Node's TLS layer raises it: the OpenSSL reason as `code`, wrapped by platformatic. */
function tlsError(code: string, message = "tls failure"): Error {
  const inner = Object.assign(new Error(message), { code });
  return new Error("Connection to 127.0.0.1:9093 failed.", { cause: new AggregateError([inner], "Cannot connect to any broker.") });
}

const scram = resolveConnection({ alias: "east", bootstrap: ["kafka:9093"], tls: { ca: "x" }, sasl: { mechanism: "SCRAM-SHA-512", username: "gw", password: "pw" } });
const mtls = resolveConnection({ alias: "west", bootstrap: ["kafka:9094"], tls: { ca: "x", cert: "c", key: "k" } });
const plain = resolveConnection({ alias: "south", bootstrap: ["kafka:9092"] });

describe("explainConnectionFailure", () => {
  it("says an untrusted server certificate needs tls.caFile, found under platformatic's wrappers", () => {
    expect(explainConnectionFailure(scram, tlsError("SELF_SIGNED_CERT_IN_CHAIN"))).toBe(
      "the server's certificate is not signed by a CA Gapwatch trusts: set tls.caFile to the CA that signed it",
    );
  });

  it("tells a missing client certificate from a refused one by what Gapwatch sent", () => {
    expect(explainConnectionFailure(scram, tlsError("ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE"))).toMatch(/^the server requires a client certificate \(mutual TLS\)/);
    expect(explainConnectionFailure(mtls, tlsError("ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE"))).toMatch(/^the server refused Gapwatch's client certificate/);
    expect(explainConnectionFailure(scram, new Error("Connection closed"))).toMatch(/a listener requiring a client certificate \(mutual TLS\) does that/);
    expect(explainConnectionFailure(mtls, new Error("Connection closed"))).toMatch(/it may have refused the client certificate/);
  });

  it("names refused SASL credentials without repeating them", () => {
    const refused = new Error("Connection failed.", { cause: Object.assign(new Error("SASL authentication failed."), { code: "PLT_KFK_AUTHENTICATION" }) });
    const hint = explainConnectionFailure(scram, refused)!;
    expect(hint).toBe("the broker refused the SCRAM-SHA-512 credentials: check sasl.username and sasl.password (and that the user exists for SCRAM-SHA-512)");
    expect(hint).not.toContain("pw");
  });

  it("adds no username/password guess to a refused OAUTHBEARER token: the error already names the failing step", () => {
    const oauth = resolveConnection({
      alias: "cloud",
      bootstrap: ["kafka:9096"],
      sasl: { mechanism: "OAUTHBEARER", tokenEndpointUrl: "https://idp/token", clientId: "gw", clientSecret: "s3cret" },
    });
    const refused = new Error("Connection failed.", { cause: Object.assign(new Error("SASL authentication failed."), { code: "PLT_KFK_AUTHENTICATION" }) });
    expect(explainConnectionFailure(oauth, refused)).toBeNull();
  });

  it("adds no username/password guess to a refused MSK IAM token: the mechanism has neither", () => {
    const msk = resolveConnection({
      alias: "msk",
      bootstrap: ["b-1.msk:9098"],
      tls: {},
      sasl: { mechanism: "AWS_MSK_IAM", region: "eu-west-1" },
    });
    const refused = new Error("Connection failed.", {
      cause: Object.assign(new Error("SASL authentication failed."), { code: "PLT_KFK_AUTHENTICATION" }),
    });
    expect(explainConnectionFailure(msk, refused)).toBeNull();
  });

  it("says nothing for a plaintext cluster whose broker went away, or an error it does not know", () => {
    expect(explainConnectionFailure(plain, new Error("Connection closed"))).toBeNull();
    expect(explainConnectionFailure(scram, Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9093"), { code: "ECONNREFUSED" }))).toBeNull();
  });

  it("says a TLS client reached a port that does not speak TLS", () => {
    expect(explainConnectionFailure(scram, new Error("Client network socket disconnected before secure TLS connection was established"))).toMatch(
      /^the port does not speak TLS/,
    );
  });
});

describe("TLS material", () => {
  it("finds the OpenSSL code however deep and maps a host name mismatch to verifyHostname", () => {
    expect(findTlsCode(tlsError("ERR_TLS_CERT_ALTNAME_INVALID"))).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(explainTlsFailure("ERR_TLS_CERT_ALTNAME_INVALID", "tls")).toMatch(/tls\.verifyHostname: false turns the check off/);
    expect(explainTlsFailure("ECONNREFUSED", "tls")).toBeNull();
  });

  it("keeps chain verification but skips the host name check with verifyHostname: false; decodes a PKCS12 keystore", () => {
    const options = toNodeTlsOptions({ ca: "ca", pfx: Buffer.from("p12").toString("base64"), passphrase: "s", verifyHostname: false });
    expect(options.rejectUnauthorized).toBeUndefined();
    expect(options.checkServerIdentity?.("kafka", {} as never)).toBeUndefined();
    expect(Buffer.from(options.pfx as Buffer).toString()).toBe("p12");
    expect(toNodeTlsOptions({ ca: "ca" }).checkServerIdentity).toBeUndefined();
  });
});
