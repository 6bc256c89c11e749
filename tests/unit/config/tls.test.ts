import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigText } from "@/lib/config/load";
import { validateConfigText } from "@/lib/config/load";
import { ConfigError } from "@/lib/errors";
import {
  fixtureCaPem,
  fixtureClientCertPem,
  fixtureClientKeyPem,
  fixtureEncryptedClientKeyPem,
  fixtureKeystoreBase64,
  fixtureKeystorePassword,
  fixtureOtherKeyPem,
} from "./tls-fixtures";

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-tls-config-"));
  file = path.join(dir, "gapwatch.config.yaml");
  // As a Kubernetes Secret mounted at /etc/gapwatch/tls would lay them out (Strimzi's KafkaUser names).
  mkdirSync(path.join(dir, "tls"));
  writeFileSync(path.join(dir, "tls", "ca.crt"), fixtureCaPem);
  writeFileSync(path.join(dir, "tls", "user.crt"), fixtureClientCertPem);
  writeFileSync(path.join(dir, "tls", "user.key"), fixtureClientKeyPem);
  writeFileSync(path.join(dir, "tls", "user-encrypted.key"), fixtureEncryptedClientKeyPem);
  writeFileSync(path.join(dir, "tls", "other.key"), fixtureOtherKeyPem);
  writeFileSync(path.join(dir, "tls", "user.p12"), Buffer.from(fixtureKeystoreBase64, "base64"));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = { NODE_ENV: "test" as const, KEYSTORE_PASSWORD: fixtureKeystorePassword, CONNECT_TOKEN: "t0ken-secret" };

/** A config with cluster east whose tls section is `tlsYaml` (lines indented under `tls:`). */
function clusterWithTls(tlsYaml: string): string {
  return `clusters:\n  - alias: east\n    bootstrap: kafka:9093\n    tls:\n${tlsYaml.replace(/^/gm, "      ")}\n`;
}

/** The ConfigError message parseConfigText throws for `text` (fails the test when it does not throw one). */
function errorOf(text: string): string {
  try {
    parseConfigText(text, file, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("cluster tls from mounted files", () => {
  it("reads caFile, certFile and keyFile relative to the config file, verification on by default", () => {
    const config = parseConfigText(clusterWithTls("caFile: tls/ca.crt\ncertFile: tls/user.crt\nkeyFile: tls/user.key"), file, env);
    expect(config.clusters[0]!.tls).toEqual({ ca: fixtureCaPem, cert: fixtureClientCertPem, key: fixtureClientKeyPem, rejectUnauthorized: true });
  });

  it("reads a PKCS12 keystore with its password from the environment", () => {
    const config = parseConfigText(clusterWithTls("caFile: tls/ca.crt\nkeystoreFile: tls/user.p12\nkeystorePassword: ${KEYSTORE_PASSWORD}"), file, env);
    expect(config.clusters[0]!.tls).toEqual({ ca: fixtureCaPem, pfx: fixtureKeystoreBase64, passphrase: fixtureKeystorePassword, rejectUnauthorized: true });
  });

  it("takes an encrypted key with keyPassword and keeps verifyHostname: false when asked", () => {
    const config = parseConfigText(
      clusterWithTls("caFile: tls/ca.crt\ncertFile: tls/user.crt\nkeyFile: tls/user-encrypted.key\nkeyPassword: ${KEYSTORE_PASSWORD}\nverifyHostname: false"),
      file,
      env,
    );
    expect(config.clusters[0]!.tls).toMatchObject({ passphrase: fixtureKeystorePassword, verifyHostname: false, rejectUnauthorized: true });
  });

  it("names the field and the path of a file it cannot read", () => {
    expect(errorOf(clusterWithTls("caFile: /etc/gapwatch/tls/missing.crt"))).toBe(
      `${file}: clusters[0].tls.caFile: cannot read the PEM file /etc/gapwatch/tls/missing.crt (ENOENT); give a readable file`,
    );
    expect(errorOf(clusterWithTls("caFile: tls/ca.crt\nkeystoreFile: tls/none.p12"))).toBe(
      `${file}: clusters[0].tls.keystoreFile: cannot read the PKCS12 keystore ${path.join(dir, "tls", "none.p12")} (ENOENT); give a readable file`,
    );
  });

  it("refuses a CA file that is not a PEM certificate", () => {
    writeFileSync(path.join(dir, "tls", "garbage.crt"), "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
    expect(errorOf(clusterWithTls("caFile: tls/garbage.crt"))).toMatch(new RegExp(`^${file}: clusters\\[0\\]\\.tls\\.caFile: not a PEM certificate \\(`));
  });

  it("refuses a wrong keystore or key password, a missing key password and a key of another certificate, naming the field", () => {
    expect(errorOf(clusterWithTls("certFile: tls/user.crt\nkeyFile: tls/user-encrypted.key\nkeyPassword: wrong"))).toMatch(
      new RegExp(`^${file}: clusters\\[0\\]\\.tls\\.keyFile: cannot be decrypted with keyPassword`),
    );
    expect(errorOf(clusterWithTls("keystoreFile: tls/user.p12\nkeystorePassword: wrong"))).toMatch(
      new RegExp(`^${file}: clusters\\[0\\]\\.tls\\.keystoreFile: cannot be decrypted with keystorePassword \\(wrong or missing password\\?\\)`),
    );
    expect(errorOf(clusterWithTls("certFile: tls/user.crt\nkeyFile: tls/user-encrypted.key"))).toMatch(
      new RegExp(`^${file}: clusters\\[0\\]\\.tls\\.keyFile: the private key is encrypted: set keyPassword`),
    );
    expect(errorOf(clusterWithTls("certFile: tls/user.crt\nkeyFile: tls/other.key"))).toMatch(
      new RegExp(`^${file}: clusters\\[0\\]\\.tls\\.keyFile: the private key does not belong to the client certificate`),
    );
  });

  it("never repeats a password in its errors", () => {
    expect(errorOf(clusterWithTls("keystoreFile: tls/user.p12\nkeystorePassword: hunter2-secret"))).not.toContain("hunter2-secret");
  });

  it("refuses contradictory or incomplete settings with the field to fix", () => {
    const cases: [string, string][] = [
      ["ca: tls/ca.crt\ncaFile: tls/ca.crt", "clusters[0].tls.caFile: give ca (PEM text) or caFile (a path), not both"],
      ["certFile: tls/user.crt", "clusters[0].tls.keyFile: a client certificate needs its private key: set keyFile (or key)"],
      ["keyFile: tls/user.key", "clusters[0].tls.certFile: a private key needs its client certificate: set certFile (or cert)"],
      ["keystoreFile: tls/user.p12\ncertFile: tls/user.crt", "clusters[0].tls.keystoreFile: give the client certificate as keystoreFile (PKCS12) or as certFile + keyFile (PEM), not both"],
      ["keystorePassword: x", "clusters[0].tls.keystorePassword: keystorePassword belongs to keystoreFile; set keystoreFile or remove it"],
      ["keyPassword: x", "clusters[0].tls.keyPassword: keyPassword is the passphrase of keyFile; set keyFile or remove it"],
      ["trustStore: x", 'clusters[0].tls: Unrecognized key: "trustStore"'],
    ];
    for (const [tls, message] of cases) expect(errorOf(clusterWithTls(tls))).toBe(`${file}: ${message}`);
  });

  it("validates without reading the files (npm run init writes them later)", () => {
    const parsed = validateConfigText(clusterWithTls("caFile: /not/yet/there.crt"), file, env);
    expect(parsed.clusters[0]!.tls).toEqual({ caFile: "/not/yet/there.crt", rejectUnauthorized: true });
  });
});

describe("connect entries: https with a CA, a client certificate, a bearer token and headers", () => {
  const withConnect = (entry: string) => `clusters:\n  - alias: east\n    bootstrap: kafka:9092\nconnect:\n  - name: dr\n${entry.replace(/^/gm, "    ")}\n`;

  it("reads tls files and keeps the bearer token and headers from the environment", () => {
    const config = parseConfigText(
      withConnect(
        "url: https://connect.dr:8443\nbearerToken: ${CONNECT_TOKEN}\nheaders:\n  X-Api-Key: ${CONNECT_TOKEN}\n" +
          "tls:\n  caFile: tls/ca.crt\n  keystoreFile: tls/user.p12\n  keystorePassword: ${KEYSTORE_PASSWORD}",
      ),
      file,
      env,
    );
    expect(config.connect[0]).toEqual({
      name: "dr",
      url: "https://connect.dr:8443",
      bearerToken: "t0ken-secret",
      headers: { "X-Api-Key": "t0ken-secret" },
      tls: { ca: fixtureCaPem, pfx: fixtureKeystoreBase64, passphrase: fixtureKeystorePassword, rejectUnauthorized: true },
      timeoutMs: 5000,
    });
  });

  it("refuses tls on an http url, basic auth with a bearer token, and headers Gapwatch sets itself", () => {
    expect(errorOf(withConnect("url: http://connect:8083\ntls:\n  caFile: tls/ca.crt"))).toBe(`${file}: connect[0].tls: tls needs an https:// url`);
    expect(errorOf(withConnect("url: https://u:p@connect:8443\nbearerToken: x"))).toBe(
      `${file}: connect[0].bearerToken: give auth (basic) or bearerToken, not both: each is the Authorization header`,
    );
    expect(errorOf(withConnect("url: https://connect:8443\nheaders:\n  Authorization: Bearer x"))).toBe(
      `${file}: connect[0].headers.Authorization: Gapwatch sets Authorization itself; use auth or bearerToken`,
    );
    expect(errorOf(withConnect("url: https://connect:8443\nheaders:\n  bad header: x"))).toMatch(/^.*connect\[0\]\.headers\.bad header: must be an HTTP header name/);
  });

  it("names the connect entry's field when its tls file cannot be read", () => {
    expect(errorOf(withConnect("url: https://connect:8443\ntls:\n  caFile: tls/nope.crt"))).toBe(
      `${file}: connect[0].tls.caFile: cannot read the PEM file ${path.join(dir, "tls", "nope.crt")} (ENOENT); give a readable file`,
    );
  });
});
