/** The ACL plan as text an operator applies: `kafka-acls` commands and Strimzi `KafkaUser` resources. Pure. */
import { stringify } from "yaml";
import { type AclRule, type ClusterAcls } from "./acl-rules";

/** Quotes a shell word when it holds anything but safe characters (`*` would be globbed). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.:,/=@+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function resourceArgs(rule: AclRule): string[] {
  if (rule.resourceType === "cluster") return ["--cluster"];
  const pattern = rule.patternType === "prefixed" ? ["--resource-pattern-type", "prefixed"] : [];
  return [`--${rule.resourceType}`, rule.resourceName, ...pattern];
}

/** The arguments of Kafka's AclCommand (`kafka-acls.sh`) that add or remove (`--force`: without asking) one rule. */
export function listAclCommandArgs(rule: AclRule, principal: string, bootstrap: readonly string[], action: "add" | "remove" = "add"): string[] {
  const verb = action === "add" ? ["--add"] : ["--remove", "--force"];
  return ["--bootstrap-server", bootstrap.join(","), ...verb, "--allow-principal", principal, "--operation", rule.operation, ...resourceArgs(rule)];
}

/**
 * One `kafka-acls` command for one rule (`--add`, or `--remove --force` to take it back), so that each ACL can be
 * granted or revoked on its own. `--command-config` is left to the operator: it holds an admin's credentials.
 */
export function renderAclCommand(rule: AclRule, principal: string, bootstrap: readonly string[], action: "add" | "remove" = "add"): string {
  return ["kafka-acls.sh", ...listAclCommandArgs(rule, principal, bootstrap, action).map(shellWord)].join(" ");
}

/** Every cluster's `kafka-acls` commands, each cluster under a comment naming it. */
export function renderAclCommands(plan: readonly ClusterAcls[], principal: string): string {
  return plan
    .map((c) => [`# cluster ${c.cluster}`, ...c.rules.map((r) => `${renderAclCommand(r, principal, c.bootstrap)}   # ${r.why}`)].join("\n"))
    .join("\n\n")
    .concat("\n");
}

/** Strimzi names a KafkaUser's principal `User:<metadata.name>`; the name part of `principal` must be a DNS-1123 name. */
export function strimziUserName(principal: string): string {
  const match = /^User:([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(principal);
  if (match === null) {
    throw new Error(`--principal ${principal}: a Strimzi KafkaUser is named by its principal, which must be User:<lower-case DNS name> (e.g. User:gapwatch)`);
  }
  return match[1]!;
}

/**
 * One Strimzi `KafkaUser` per cluster (`strimzi.io/cluster` is the cluster's alias: rename it to your Kafka
 * resource's name), `authorization.type: simple`, rules of one resource pattern merged into one entry.
 * Authentication is left out: add the `spec.authentication` your listener uses (scram-sha-512, tls, …).
 */
export function renderStrimziUsers(plan: readonly ClusterAcls[], principal: string): string {
  const name = strimziUserName(principal);
  return plan
    .map((c) => {
      const entries = new Map<string, { resource: Record<string, string>; operations: string[] }>();
      for (const r of c.rules) {
        const key = `${r.resourceType}|${r.resourceName}|${r.patternType}`;
        const resource: Record<string, string> = r.resourceType === "cluster" ? { type: "cluster" } : { type: r.resourceType, name: r.resourceName, patternType: r.patternType };
        const entry = entries.get(key) ?? { resource, operations: [] };
        entry.operations.push(r.operation);
        entries.set(key, entry);
      }
      const user = {
        apiVersion: "kafka.strimzi.io/v1beta2",
        kind: "KafkaUser",
        metadata: { name, labels: { "strimzi.io/cluster": c.cluster } },
        spec: { authorization: { type: "simple", acls: [...entries.values()].map((e) => ({ ...e, host: "*" })) } },
      };
      return stringify(user, { lineWidth: 0 });
    })
    .join("---\n");
}
