import type { SandboxCertificates } from "./certificates";
import { findFreePort } from "./free-port";
import type { SandboxListener } from "./kraft-cluster";

/**
 * The sandbox's secured option (`startSandbox({ secured: true })`): beside PLAINTEXT (kept for the sandbox's own
 * tools, MM2 and inter-broker traffic) each single-node cluster gets
 * - `SCRAM_SSL` (SASL_SSL, SCRAM-SHA-512 only; the user is created when the storage is formatted), and
 * - `MTLS` (SSL with `ssl.client.auth=required`: a client certificate signed by the sandbox CA is the credential),
 * and the Connect worker an `https://` REST listener with `listeners.https.ssl.client.auth=required` beside http.
 * Every listener setting is prefixed with its listener name, so other listeners (e.g. an OAUTHBEARER one) are unaffected.
 */
export interface SecuredSandbox {
  certificates: SandboxCertificates;
  /** The SCRAM-SHA-512 user every cluster knows, and its (random) password. */
  scram: { mechanism: "SCRAM-SHA-512"; username: string; password: string };
  /** Bootstrap addresses of the secured listeners, by cluster alias. */
  clusters: Record<string, { scramSsl: string; mtls: string }>;
  /** Connect's HTTPS REST listener (client certificate required). */
  connect: { httpsUrl: string; httpsPort: number };
}

/** Listener names as written in server.properties. */
export const scramListenerName = "SCRAM_SSL";
export const mtlsListenerName = "MTLS";

/** The SCRAM_SSL and MTLS listeners of one broker, each on a free port. */
export async function createSecuredListeners(certs: SandboxCertificates): Promise<SandboxListener[]> {
  const [scramPort, mtlsPort] = [await findFreePort(), await findFreePort()];
  const scram = scramListenerName.toLowerCase();
  const mtls = mtlsListenerName.toLowerCase();
  return [
    {
      name: scramListenerName,
      protocol: "SASL_SSL",
      port: scramPort,
      properties: [
        ...listenerTlsProperties(scram, certs),
        `listener.name.${scram}.sasl.enabled.mechanisms=SCRAM-SHA-512`,
        `listener.name.${scram}.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
      ],
    },
    {
      name: mtlsListenerName,
      protocol: "SSL",
      port: mtlsPort,
      properties: [...listenerTlsProperties(mtls, certs), `listener.name.${mtls}.ssl.client.auth=required`],
    },
  ];
}

function listenerTlsProperties(prefix: string, certs: SandboxCertificates): string[] {
  return [
    `listener.name.${prefix}.ssl.keystore.type=PKCS12`,
    `listener.name.${prefix}.ssl.keystore.location=${certs.serverKeystoreFile}`,
    `listener.name.${prefix}.ssl.keystore.password=${certs.storePassword}`,
    `listener.name.${prefix}.ssl.key.password=${certs.storePassword}`,
    // Kafka reads a PEM truststore itself (KIP-651).
    `listener.name.${prefix}.ssl.truststore.type=PEM`,
    `listener.name.${prefix}.ssl.truststore.location=${certs.caFile}`,
  ];
}

/**
 * `kafka-storage format` arguments that create the SCRAM user in the cluster's metadata before the first start
 * (KIP-900), so no kafka-configs run is needed after it.
 */
export function scramFormatArguments(scram: SecuredSandbox["scram"]): string[] {
  return ["--add-scram", `${scram.mechanism}=[name=${scram.username},password=${scram.password}]`];
}

/**
 * Connect worker properties for an HTTPS REST listener beside http (Connect's `listeners.https.*` settings, read by
 * its RestServer through SSLUtils into Jetty): the server keystore, the sandbox CA as truststore, client
 * certificates required. `rest.advertised.listener=http` keeps worker-to-worker forwarding on plain http.
 */
export function httpsConnectProperties(certs: SandboxCertificates, httpPort: number, httpsPort: number): string[] {
  return [
    `listeners=http://127.0.0.1:${httpPort},https://127.0.0.1:${httpsPort}`,
    "rest.advertised.listener=http",
    "listeners.https.ssl.keystore.type=PKCS12",
    `listeners.https.ssl.keystore.location=${certs.serverKeystoreFile}`,
    `listeners.https.ssl.keystore.password=${certs.storePassword}`,
    `listeners.https.ssl.key.password=${certs.storePassword}`,
    "listeners.https.ssl.truststore.type=PKCS12",
    `listeners.https.ssl.truststore.location=${certs.truststoreFile}`,
    `listeners.https.ssl.truststore.password=${certs.storePassword}`,
    "listeners.https.ssl.client.auth=required",
  ];
}
