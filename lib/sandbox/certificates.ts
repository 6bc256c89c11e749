import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Throwaway certificates for the sandbox's secured listeners, made with Debian's `openssl` and the JDK's `keytool`:
 * a CA, a server certificate for 127.0.0.1/localhost (brokers' TLS listeners and Connect's HTTPS listener) and a
 * client certificate (mTLS), all signed by that CA; and a second, unrelated CA with its own client certificate, so
 * tests can present a certificate the servers must refuse and trust a CA that did not sign them.
 * EC P-256 keys (faster to make than RSA). PEM for Node; PKCS12 for the JVMs (OpenSSL 3 writes PBES2/AES
 * keystores, which Java 17 reads).
 */
export interface SandboxCertificates {
  dir: string;
  /** The sandbox CA (PEM) that signed the server and client certificates. */
  caFile: string;
  /** A CA that signed nothing the sandbox serves: trusting only it must fail. */
  otherCaFile: string;
  /** Client certificate and key (PEM, CN=gapwatch) signed by the sandbox CA. */
  clientCertFile: string;
  clientKeyFile: string;
  /** The same client certificate and key as a PKCS12 keystore, protected by `storePassword`. */
  clientKeystoreFile: string;
  /** A client certificate and key signed by the other CA: a mutual-TLS server must refuse it. */
  strangerCertFile: string;
  strangerKeyFile: string;
  /** Server keystore (PKCS12: key, certificate, CA chain) for brokers and Connect. */
  serverKeystoreFile: string;
  /** Truststore (PKCS12) holding only the sandbox CA, for the JVMs. */
  truststoreFile: string;
  /** Password of both PKCS12 stores and of the keys in them (random per sandbox). */
  storePassword: string;
}

/** The principal the client certificate authenticates as on a broker's SSL listener. */
export const clientCertificateSubject = "CN=gapwatch";

const validDays = "7";

/** Makes a fresh CA and certificates under `dir` (created); about a second of openssl and one keytool run. */
export async function createSandboxCertificates(dir: string): Promise<SandboxCertificates> {
  // Fresh every time: keytool refuses to import into a truststore that already holds the alias.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => path.join(dir, name);
  const storePassword = randomBytes(12).toString("hex");
  await Promise.all([createCa(file("ca"), "gapwatch-sandbox-ca"), createCa(file("other-ca"), "gapwatch-other-ca")]);
  writeFileSync(file("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  writeFileSync(file("client.ext"), "extendedKeyUsage=clientAuth\n");
  await Promise.all([
    createSignedCertificate(file("server"), "/CN=localhost", file("ca"), file("server.ext")),
    createSignedCertificate(file("client"), `/${clientCertificateSubject}`, file("ca"), file("client.ext")),
    createSignedCertificate(file("stranger"), "/CN=stranger", file("other-ca"), file("client.ext")),
  ]);
  const pass = `pass:${storePassword}`;
  await Promise.all([
    createKeystore(file("server"), file("ca.pem"), pass),
    createKeystore(file("client"), file("ca.pem"), pass),
    // A truststore entry must be a Java "trusted certificate" entry, which OpenSSL 3.0 cannot write: keytool does.
    run("keytool", [
      "-importcert", "-noprompt", "-alias", "sandbox-ca", "-file", file("ca.pem"),
      "-keystore", file("truststore.p12"), "-storetype", "PKCS12", "-storepass", storePassword,
    ]),
  ]);
  return {
    dir,
    caFile: file("ca.pem"),
    otherCaFile: file("other-ca.pem"),
    clientCertFile: file("client.pem"),
    clientKeyFile: file("client.key"),
    clientKeystoreFile: file("client.p12"),
    strangerCertFile: file("stranger.pem"),
    strangerKeyFile: file("stranger.key"),
    serverKeystoreFile: file("server.p12"),
    truststoreFile: file("truststore.p12"),
    storePassword,
  };
}

/** `openssl req` arguments for a new EC P-256 key (faster to make than RSA, and Java 17 serves it). */
const newEcKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

function createCa(base: string, commonName: string): Promise<void> {
  return run("openssl", [
    "req", "-x509", ...newEcKey, "-keyout", `${base}.key`, "-out", `${base}.pem`, "-days", validDays, "-subj", `/CN=${commonName}`,
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ]);
}

/** `<base>.p12`: the key, its certificate and the CA, as the JVMs read them. */
function createKeystore(base: string, caFile: string, pass: string): Promise<void> {
  const name = path.basename(base);
  return run("openssl", [
    "pkcs12", "-export", "-in", `${base}.pem`, "-inkey", `${base}.key`, "-certfile", caFile, "-name", name, "-out", `${base}.p12`, "-passout", pass,
  ]);
}

async function createSignedCertificate(base: string, subject: string, ca: string, extFile: string): Promise<void> {
  await run("openssl", ["req", "-new", ...newEcKey, "-keyout", `${base}.key`, "-out", `${base}.csr`, "-subj", subject]);
  await run("openssl", ["x509", "-req", "-in", `${base}.csr`, "-CA", `${ca}.pem`, "-CAkey", `${ca}.key`,
    // Its own random serial: certificates are signed in parallel, and a shared serial file (-CAcreateserial) would race.
    "-set_serial", `0x${randomBytes(12).toString("hex")}`,
    "-out", `${base}.pem`, "-days", validDays, "-extfile", extFile]);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: "utf8" }, (err, stdout, stderr) => {
      if (!err) return resolve();
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      const packageName = command === "keytool" ? "openjdk-17-jdk-headless" : "openssl";
      const hint = missing ? ` (${command} is not installed: apt-get install -y ${packageName})` : "";
      // Never the arguments: they hold the store password.
      const output = `${stdout}\n${stderr}`.trim().slice(-500);
      reject(new Error(`making sandbox certificates: ${command} ${args[0]} failed${hint}: ${output}`));
    });
  });
}
