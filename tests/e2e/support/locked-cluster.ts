import { rmSync } from "node:fs";
import path from "node:path";
import { planAcls } from "@/lib/acls/acl-rules";
import { listAclCommandArgs } from "@/lib/acls/render-acls";
import { startAuthorizedCluster } from "@/lib/sandbox/authorizer";
import { classpathOf } from "@/lib/sandbox/jars";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { writeLogConfig } from "@/lib/sandbox/log-config";
import { gapwatchDir, sandboxDir } from "@/lib/sandbox/paths";
import { stopProcess } from "@/lib/sandbox/processes";
import { readSandboxState } from "@/lib/sandbox/state";
import { ensureTopics } from "@/lib/sandbox/topics";

/** The alias of the cluster that enforces ACLs, its one topic, and Gapwatch's least-privilege user on it. */
export const lockedAlias = "locked";
export const lockedTopic = "ledger";
export const lockedUser = { username: "gapwatch", password: "gapwatch-e2e-locked-secret" };
/** The generated ACLs left out, so each is a real blind spot: topic configs, and the broker's configs. */
export const withheldKinds = ["topic-configs", "broker-configs"] as const;

/** A running locked cluster: the SASL bootstrap Gapwatch's config names, and how to stop it (by PID). */
export interface LockedCluster {
  saslBootstrap: string;
  stop(): Promise<void>;
}

/**
 * A single-node KRaft cluster with Kafka's StandardAuthorizer (lib/sandbox/authorizer.ts) beside the e2e sandbox:
 * Gapwatch's user holds the ACLs `npm run acls` generates except `withheldKinds`, granted with Kafka's AclCommand.
 */
export async function startLockedCluster(): Promise<LockedCluster> {
  const state = readSandboxState();
  const baseDir = path.join(gapwatchDir, "e2e-locked");
  rmSync(baseDir, { recursive: true, force: true });
  const opts = { alias: lockedAlias, baseDir, classpath: classpathOf(state.jars), logOption: writeLogConfig(sandboxDir, state.kafkaVersion) };
  const cluster = await startAuthorizedCluster(opts, lockedUser);
  try {
    const [plan] = planAcls({ clusters: [{ alias: lockedAlias, bootstrap: [cluster.saslBootstrap] }] });
    const granted = plan!.rules.filter((r) => !(withheldKinds as readonly string[]).includes(r.kind));
    const principal = `User:${lockedUser.username}`;
    await Promise.all(granted.map((r) => runKafkaTool(state, "org.apache.kafka.tools.AclCommand", listAclCommandArgs(r, principal, [cluster.bootstrap]))));
    await ensureTopics(cluster.bootstrap, [{ topic: lockedTopic, partitions: 1 }]);
  } catch (err) {
    await stopProcess(cluster.process);
    throw err;
  }
  return { saslBootstrap: cluster.saslBootstrap, stop: () => stopProcess(cluster.process) };
}
