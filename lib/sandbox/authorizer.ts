/**
 * Sandbox option: a KRaft cluster that enforces ACLs (Kafka's StandardAuthorizer), with a SASL_PLAINTEXT listener
 * (mechanism PLAIN) for one least-privilege user beside the usual PLAINTEXT listener. PLAINTEXT clients (the broker
 * itself, the controller, the sandbox's tools and workload, MM2 on the Connect worker) are `User:ANONYMOUS`, a super
 * user; the SASL user may do only what ACLs grant it (`allow.everyone.if.no.acl.found=false`).
 */
import { findFreePort } from "./free-port";
import { type SandboxCluster, type SandboxListener, startCluster, type StartClusterOptions } from "./kraft-cluster";

/** The least-privilege user of the SASL listener. */
export interface SaslUser {
  username: string;
  password: string;
}

/** The listener name the SASL user connects to. */
export const saslListenerName = "GAPWATCH";

/** Java properties value quoting for a JAAS option (backslash and double quote escaped). */
function quoteJaas(value: string): string {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The broker options (through kraft-cluster.ts's hook) for an authorizer and the SASL listener on `port`. */
export function describeAuthorizerOptions(user: SaslUser, port: number): Pick<StartClusterOptions, "extraListeners" | "extraProperties"> {
  if (!/^[A-Za-z0-9_.-]+$/.test(user.username)) throw new Error(`sandbox SASL username "${user.username}": letters, digits, '.', '_' and '-' only`);
  const prefix = `listener.name.${saslListenerName.toLowerCase()}`;
  const listener: SandboxListener = {
    name: saslListenerName,
    protocol: "SASL_PLAINTEXT",
    port,
    properties: [
      `${prefix}.sasl.enabled.mechanisms=PLAIN`,
      `${prefix}.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${user.username}=${quoteJaas(user.password)};`,
    ],
  };
  return {
    extraListeners: [listener],
    extraProperties: [
      "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
      "super.users=User:ANONYMOUS",
      "allow.everyone.if.no.acl.found=false",
    ],
  };
}

/** A sandbox cluster with an authorizer: `saslBootstrap` is the least-privilege user's address. */
export interface AuthorizedCluster extends SandboxCluster {
  saslBootstrap: string;
  user: SaslUser;
}

/** Starts one single-node KRaft cluster enforcing ACLs, with the SASL listener for `user` on a free port. */
export async function startAuthorizedCluster(opts: Omit<StartClusterOptions, "extraListeners" | "extraProperties">, user: SaslUser): Promise<AuthorizedCluster> {
  const cluster = await startCluster({ ...opts, ...describeAuthorizerOptions(user, await findFreePort()) });
  return { ...cluster, saslBootstrap: cluster.listenerBootstraps[saslListenerName]!, user };
}
