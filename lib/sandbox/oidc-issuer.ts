import path from "node:path";
import { findFreePort } from "./free-port";
import type { SandboxListener } from "./kraft-cluster";
import type { OidcIssuerSettings } from "./oidc-issuer-settings";
import { sandboxDir } from "./paths";
import { type ManagedProcess, sleep, spawnTracked, stopProcess, tailFile } from "./processes";

const oauthPackage = "org.apache.kafka.common.security.oauthbearer";

/** A running sandbox OIDC issuer: its URLs and the process that serves them. */
export interface OidcIssuer {
  /** The `iss` claim of its tokens and the base of its URLs, http://127.0.0.1:<port>. */
  url: string;
  jwksUrl: string;
  tokenUrl: string;
  audience: string;
  process: ManagedProcess;
}

/**
 * Starts the OIDC issuer (oidc-issuer-server.ts) as a tracked child process — Node with tsx as a loader, so that
 * the PID is the server's own — and waits until its JWKS answers.
 */
export async function startOidcIssuer(opts: Omit<OidcIssuerSettings, "port"> & { name?: string }): Promise<OidcIssuer> {
  const port = await findFreePort();
  const { name = "oidc-issuer", ...rest } = opts;
  const settings: OidcIssuerSettings = { ...rest, port };
  const proc = spawnTracked({
    name,
    command: process.execPath,
    args: ["--import", "tsx", path.join(import.meta.dirname, "oidc-issuer-server.ts"), JSON.stringify(settings)],
    logFile: path.join(sandboxDir, name, "issuer.log"),
  });
  const url = `http://127.0.0.1:${port}`;
  const issuer = { url, jwksUrl: `${url}/jwks`, tokenUrl: `${url}/token`, audience: opts.audience, process: proc };
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
    if (proc.hasExited()) throw new Error(`the OIDC issuer exited during start-up. ${lastLinesOf(proc)}`);
    const ok = await fetch(issuer.jwksUrl).then((r) => r.ok, () => false);
    if (ok) return issuer;
  }
  await stopProcess(proc);
  throw new Error(`the OIDC issuer did not answer ${issuer.jwksUrl} within 30 s. ${lastLinesOf(proc)}`);
}

function lastLinesOf(proc: ManagedProcess): string {
  return `Last lines of ${proc.logFile}:\n${tailFile(proc.logFile)}`;
}

/** Tokens the issuer has issued, per client id. */
export async function readIssuedTokens(issuer: OidcIssuer): Promise<Record<string, number>> {
  const response = await fetch(`${issuer.url}/stats`);
  return ((await response.json()) as { issued: Record<string, number> }).issued;
}

/**
 * A SASL_PLAINTEXT broker listener that takes only SASL/OAUTHBEARER and validates JWTs with Kafka's built-in
 * OAuthBearerValidatorCallbackHandler against the issuer's JWKS, audience and issuer. `reauthMs` sets the listener's
 * connections.max.reauth.ms (KIP-368: the broker tells clients to re-authenticate within it, and closes a connection
 * that does not). Kafka 4.x fetches an OAuth URL only when the JVM system property
 * org.apache.kafka.sasl.oauthbearer.allowed.urls lists it (ConfigurationUtils.throwIfURLIsNotAllowed): the broker
 * JVM needs `jvmOptions`.
 */
export async function oauthBearerListener(
  issuer: OidcIssuer,
  opts: { name?: string; reauthMs?: number } = {},
): Promise<{ listener: SandboxListener; jvmOptions: string[] }> {
  const name = opts.name ?? "OAUTH";
  const prefix = `listener.name.${name.toLowerCase()}`;
  const properties = [
    `${prefix}.sasl.enabled.mechanisms=OAUTHBEARER`,
    `${prefix}.oauthbearer.sasl.jaas.config=${oauthPackage}.OAuthBearerLoginModule required ;`,
    `${prefix}.oauthbearer.sasl.server.callback.handler.class=${oauthPackage}.OAuthBearerValidatorCallbackHandler`,
    `${prefix}.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=${issuer.jwksUrl}`,
    `${prefix}.oauthbearer.sasl.oauthbearer.expected.audience=${issuer.audience}`,
    `${prefix}.oauthbearer.sasl.oauthbearer.expected.issuer=${issuer.url}`,
    // Short sandbox tokens: no grace past `exp` (the default clock skew is 30 s).
    `${prefix}.oauthbearer.sasl.oauthbearer.clock.skew.seconds=0`,
    ...(opts.reauthMs !== undefined ? [`${prefix}.oauthbearer.connections.max.reauth.ms=${opts.reauthMs}`] : []),
  ];
  return {
    listener: { name, protocol: "SASL_PLAINTEXT", port: await findFreePort(), properties },
    jvmOptions: [`-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${issuer.jwksUrl}`],
  };
}
