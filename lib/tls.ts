import type { ConnectionOptions } from "node:tls";

/**
 * TLS material as the loaded config holds it (lib/config reads the files named in the config): PEM text, or a
 * PKCS12 keystore as base64. Used for brokers (lib/kafka) and Connect REST (lib/connect).
 */
export interface TlsMaterial {
  /** CA certificates (PEM) that sign the server's certificate; absent: Node's built-in CAs. */
  ca?: string;
  /** Client certificate chain and key (PEM) for mutual TLS. */
  cert?: string;
  key?: string;
  /** Passphrase of an encrypted `key` or of the `pfx` keystore. */
  passphrase?: string;
  /** PKCS12 keystore (client key and certificate), base64. */
  pfx?: string;
  /** Verify the server's certificate chain (default true). */
  rejectUnauthorized?: boolean;
  /** Check that the server's certificate names the host connected to (default true). */
  verifyHostname?: boolean;
}

/** True when the material holds a client certificate (PEM pair or PKCS12 keystore). */
export function hasClientCertificate(tls: TlsMaterial | boolean | undefined): boolean {
  return typeof tls === "object" && (tls.cert !== undefined || tls.pfx !== undefined);
}

/** Node's TLS options for the material; `verifyHostname: false` keeps the chain check but skips the name check. */
export function toNodeTlsOptions(tls: TlsMaterial): ConnectionOptions {
  const options: ConnectionOptions = {};
  if (tls.ca !== undefined) options.ca = tls.ca;
  if (tls.cert !== undefined) options.cert = tls.cert;
  if (tls.key !== undefined) options.key = tls.key;
  if (tls.pfx !== undefined) options.pfx = Buffer.from(tls.pfx, "base64");
  if (tls.passphrase !== undefined) options.passphrase = tls.passphrase;
  if (tls.rejectUnauthorized !== undefined) options.rejectUnauthorized = tls.rejectUnauthorized;
  if (tls.verifyHostname === false) options.checkServerIdentity = () => undefined;
  return options;
}

/**
 * What a failed TLS connection means for an operator, by the error code Node (OpenSSL) gives it. Shared by
 * lib/kafka (brokers) and lib/connect (Connect REST); `field` is the config section the fix goes in
 * (e.g. "tls" of a cluster, "connect[0].tls").
 */
const untrustedServer = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_SIGNATURE_FAILURE",
]);

/** Alerts a TLS server sends when it requires a client certificate and got none (TLS 1.3, then 1.2). */
const clientCertificateMissing = new Set([
  "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED",
  "ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE",
]);

/** Alerts a TLS server sends when it refuses the client certificate it got. */
const clientCertificateRefused = new Set([
  "ERR_SSL_TLSV1_ALERT_UNKNOWN_CA",
  "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE",
  "ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN",
  "ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR",
]);

/**
 * A sentence saying what is wrong and which setting fixes it, or null when the code is not a TLS failure.
 * `sentClientCertificate` tells a refused certificate from a missing one: Java servers (Kafka, Connect's Jetty)
 * answer both with the same alert (bad_certificate).
 */
export function explainTlsFailure(code: string | undefined, field: string, sentClientCertificate?: boolean): string | null {
  if (code === undefined) return null;
  const clientSide = clientCertificateMissing.has(code) || clientCertificateRefused.has(code);
  const required = `the server requires a client certificate (mutual TLS): ${setClientCertificate(field)}`;
  if (clientSide && sentClientCertificate === false) return required;
  if (untrustedServer.has(code)) {
    return `the server's certificate is not signed by a CA Gapwatch trusts: set ${field}.caFile to the CA that signed it`;
  }
  if (code === "CERT_HAS_EXPIRED") return "the server's certificate has expired";
  if (code === "CERT_NOT_YET_VALID") return "the server's certificate is not valid yet (check the clocks)";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return "the server's certificate does not name the host Gapwatch connects to: use a name the certificate lists " +
      `(${field}.verifyHostname: false turns the check off)`;
  }
  if (clientCertificateMissing.has(code)) return required;
  if (clientCertificateRefused.has(code)) {
    return "the server refused Gapwatch's client certificate (not signed by a CA the server trusts, expired, or not for client use)";
  }
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG") {
    return "the server does not speak TLS on this port (a plaintext listener?)";
  }
  return null;
}

/** How to give a client certificate, for the config section `field` (e.g. "tls"). */
export function setClientCertificate(field: string): string {
  return `set ${field}.certFile and ${field}.keyFile, or ${field}.keystoreFile`;
}

/** The TLS code of an error or of one of its causes (OpenSSL codes are on the innermost error). */
export function findTlsCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && explainTlsFailure(code, "tls") !== null) return code;
    if (e instanceof AggregateError) {
      const inner = e.errors.map(findTlsCode).find((c) => c !== undefined);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}
