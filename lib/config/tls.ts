import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createSecureContext } from "node:tls";
import { z } from "zod";
import { ConfigError } from "@/lib/errors";
import type { TlsMaterial } from "@/lib/tls";

/**
 * The `tls` section of a cluster or a Connect entry. PEM text inline (`ca`, `cert`, `key`; a value without
 * "-----BEGIN" is read as a file path, as before) or, for Kubernetes Secrets mounted as files, paths (`caFile`,
 * `certFile`, `keyFile`; relative to the config file); a client key and certificate may instead come as a PKCS12
 * keystore (`keystoreFile`, e.g. Strimzi's `user.p12`, with `keystorePassword: ${ENV}`). Files are read once, at
 * load. The server's chain (`rejectUnauthorized`) and host name (`verifyHostname`) are checked unless turned off.
 */
export const tlsObjectSchema = z.object({
  ca: z.string().min(1).optional(),
  caFile: z.string().min(1).optional(),
  cert: z.string().min(1).optional(),
  certFile: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
  keyFile: z.string().min(1).optional(),
  /** Passphrase of an encrypted private key. */
  keyPassword: z.string().min(1).optional(),
  keystoreFile: z.string().min(1).optional(),
  keystorePassword: z.string().optional(),
  rejectUnauthorized: z.boolean().default(true),
  /** Default true: the server's certificate must name the host (Kafka's ssl.endpoint.identification.algorithm=https). */
  verifyHostname: z.boolean().optional(),
}).strict().superRefine((tls, ctx) => {
  const issue = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [key], message });
  for (const [inline, file] of [["ca", "caFile"], ["cert", "certFile"], ["key", "keyFile"]] as const) {
    if (tls[inline] !== undefined && tls[file] !== undefined) issue(file, `give ${inline} (PEM text) or ${file} (a path), not both`);
  }
  const hasCert = tls.cert !== undefined || tls.certFile !== undefined;
  const hasKey = tls.key !== undefined || tls.keyFile !== undefined;
  if (tls.keystoreFile !== undefined && (hasCert || hasKey)) {
    issue("keystoreFile", "give the client certificate as keystoreFile (PKCS12) or as certFile + keyFile (PEM), not both");
  } else if (hasCert && !hasKey) {
    issue("keyFile", "a client certificate needs its private key: set keyFile (or key)");
  } else if (hasKey && !hasCert) {
    issue("certFile", "a private key needs its client certificate: set certFile (or cert)");
  }
  if (tls.keyPassword !== undefined && !hasKey) issue("keyPassword", "keyPassword is the passphrase of keyFile; set keyFile or remove it");
  if (tls.keystorePassword !== undefined && tls.keystoreFile === undefined) {
    issue("keystorePassword", "keystorePassword belongs to keystoreFile; set keystoreFile or remove it");
  }
});

/** `tls: true` (Node's built-in CAs, no client certificate) or the detailed section. */
export const tlsSchema = z.union([z.boolean(), tlsObjectSchema]);

export type TlsSettings = z.infer<typeof tlsObjectSchema>;

/**
 * Reads the files a validated `tls` section names and returns the material Node needs; throws ConfigError naming
 * the field and the path that cannot be read, or the field whose certificate, key or password does not fit.
 * `where` is the field path of the section (e.g. `clusters[0].tls`); `file` the config file.
 */
export function resolveTlsMaterial(tls: TlsSettings, where: string, file: string): TlsMaterial {
  const read = (key: keyof TlsSettings, value: string, encoding: "utf8" | "base64"): string => {
    const resolved = path.resolve(path.dirname(file), value);
    try {
      return readFileSync(resolved).toString(encoding);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      const what = key === "keystoreFile" ? "PKCS12 keystore" : "PEM file";
      const give = key.endsWith("File") ? "give a readable file" : "give PEM text or a readable file";
      throw new ConfigError(`${file}: ${where}.${key}: cannot read the ${what} ${resolved} (${code}); ${give}`, { cause: err });
    }
  };
  // Inline values without a PEM header have always been read as paths: a path passed on as "PEM" fails every
  // connection obscurely.
  const pem = (inline: "ca" | "cert" | "key", fileKey: "caFile" | "certFile" | "keyFile"): string | undefined => {
    if (tls[fileKey] !== undefined) return read(fileKey, tls[fileKey], "utf8");
    const value = tls[inline];
    return value === undefined || value.includes("-----BEGIN") ? value : read(inline, value, "utf8");
  };
  const material: TlsMaterial = { rejectUnauthorized: tls.rejectUnauthorized };
  const ca = pem("ca", "caFile");
  const cert = pem("cert", "certFile");
  const key = pem("key", "keyFile");
  if (ca !== undefined) material.ca = ca;
  if (cert !== undefined) material.cert = cert;
  if (key !== undefined) material.key = key;
  if (tls.keyPassword !== undefined) material.passphrase = tls.keyPassword;
  if (tls.keystoreFile !== undefined) {
    material.pfx = read("keystoreFile", tls.keystoreFile, "base64");
    material.passphrase = tls.keystorePassword ?? "";
  }
  if (tls.verifyHostname !== undefined) material.verifyHostname = tls.verifyHostname;
  checkMaterial(material, tls, where, file);
  return material;
}

/**
 * Builds TLS contexts once, so text that is not PEM, a wrong keystore password or a key that does not match its
 * certificate is refused at load, naming the field, instead of failing every connection later.
 */
function checkMaterial(material: TlsMaterial, tls: TlsSettings, where: string, file: string): void {
  const fail = (field: string, err: unknown, hint: string) => {
    const message = err instanceof Error ? err.message : String(err);
    return new ConfigError(`${file}: ${where}.${field}: ${hint} (${message})`, { cause: err });
  };
  if (material.ca !== undefined) {
    try {
      // createSecureContext ignores a CA it cannot parse; X509Certificate does not.
      new X509Certificate(material.ca);
    } catch (err) {
      throw fail(tls.caFile !== undefined ? "caFile" : "ca", err, "not a PEM certificate");
    }
  }
  if (material.cert === undefined && material.pfx === undefined) return;
  const field = tls.keystoreFile !== undefined ? "keystoreFile" : tls.keyFile !== undefined ? "keyFile" : "key";
  if (material.key?.includes("ENCRYPTED") && material.passphrase === undefined) {
    throw new ConfigError(`${file}: ${where}.${field}: the private key is encrypted: set keyPassword (as \${ENV})`);
  }
  try {
    createSecureContext({
      ...(material.pfx !== undefined
        ? { pfx: Buffer.from(material.pfx, "base64") }
        : { cert: material.cert, key: material.key }),
      ...(material.passphrase !== undefined ? { passphrase: material.passphrase } : {}),
    });
  } catch (err) {
    throw fail(field, err, describeKeyProblem(err, tls));
  }
}

function describeKeyProblem(err: unknown, tls: TlsSettings): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/mac verify failure|bad decrypt|bad password|interrupted or cancelled/i.test(message)) {
    return `cannot be decrypted with ${tls.keystoreFile !== undefined ? "keystorePassword" : "keyPassword"} (wrong or missing password?)`;
  }
  if (/key values mismatch/i.test(message)) return "the private key does not belong to the client certificate";
  return "the client certificate and key are not usable";
}
