import { randomBytes } from "node:crypto";
import path from "node:path";
import { createSandboxCertificates, type SandboxCertificates } from "./certificates";
import { findFreePort } from "./free-port";
import type { SandboxCluster, StartClusterOptions } from "./kraft-cluster";
import {
  createSecuredListeners,
  httpsConnectProperties,
  mtlsListenerName,
  scramFormatArguments,
  scramListenerName,
  type SecuredSandbox,
} from "./secured-listeners";

/** What a secured sandbox prepares before it starts anything: certificates, the SCRAM user, Connect's HTTPS port. */
export interface SecuredSetup {
  certificates: SandboxCertificates;
  scram: SecuredSandbox["scram"];
  connectHttpsPort: number;
}

/** Makes the certificates (under `<sandboxDir>/certs`) and a random SCRAM password; picks Connect's HTTPS port. */
export async function prepareSecuredSetup(sandboxDir: string): Promise<SecuredSetup> {
  const certificates = await createSandboxCertificates(path.join(sandboxDir, "certs"));
  const scram = { mechanism: "SCRAM-SHA-512" as const, username: "gapwatch", password: randomBytes(12).toString("hex") };
  return { certificates, scram, connectHttpsPort: await findFreePort() };
}

/** startCluster options of one single-broker cluster of a secured sandbox: its two listeners and the SCRAM user. */
export async function securedClusterOptions(setup: SecuredSetup): Promise<Pick<StartClusterOptions, "extraListeners" | "formatArguments">> {
  const extraListeners = await createSecuredListeners(setup.certificates);
  return { extraListeners, formatArguments: scramFormatArguments(setup.scram) };
}

/**
 * startConnectWorker options that add the HTTPS listener ({} without a secured setup). `httpPort` keeps a restarted
 * worker on its address; a new one gets a free port.
 */
export async function securedConnectOptions(
  setup: Pick<SecuredSetup, "certificates" | "connectHttpsPort"> | null,
  httpPort?: number,
): Promise<{ port?: number; extraProperties?: string[] }> {
  if (setup === null) return {};
  const port = httpPort ?? (await findFreePort());
  return { port, extraProperties: httpsConnectProperties(setup.certificates, port, setup.connectHttpsPort) };
}

/** What state.json records of a secured sandbox once its clusters and Connect run. */
export function securedSandboxOf(setup: SecuredSetup, clusters: Map<string, SandboxCluster>): SecuredSandbox {
  const listenersOf = (c: SandboxCluster) => ({
    scramSsl: c.listenerBootstraps[scramListenerName]!,
    mtls: c.listenerBootstraps[mtlsListenerName]!,
  });
  return {
    certificates: setup.certificates,
    scram: setup.scram,
    clusters: Object.fromEntries([...clusters.values()].map((c) => [c.alias, listenersOf(c)])),
    connect: { httpsUrl: `https://127.0.0.1:${setup.connectHttpsPort}`, httpsPort: setup.connectHttpsPort },
  };
}
