// `npm run acls -- --principal User:gapwatch [--config gapwatch.config.yaml] [--format commands|strimzi|both]`:
// prints the ACLs Gapwatch's principal needs on each configured cluster (lib/acls), as kafka-acls commands and/or
// Strimzi KafkaUser resources. Reads the config without its secrets (no ${ENV} needs to be set).
import { planAcls } from "@/lib/acls/acl-rules";
import { renderAclCommands, renderStrimziUsers } from "@/lib/acls/render-acls";
import { configPath, readEnv } from "@/lib/config/env";
import { readFileSync } from "node:fs";
import { validateConfigText } from "@/lib/config/load";
import { parseFlags } from "./args";

const usage = "usage: npm run acls -- --principal User:<name> [--config gapwatch.config.yaml] [--format commands|strimzi|both]\n";

function runAcls(argv: string[]): number {
  const { flags } = parseFlags(argv);
  const principal = flags.principal;
  if (principal === undefined || !/^[A-Za-z]+:.+$/.test(principal)) {
    process.stderr.write(`--principal is required, as Kafka names it (e.g. User:gapwatch)\n${usage}`);
    return 2;
  }
  const format = flags.format ?? "both";
  if (!["commands", "strimzi", "both"].includes(format)) {
    process.stderr.write(`--format must be commands, strimzi or both, not ${format}\n${usage}`);
    return 2;
  }
  const file = flags.config ?? configPath(readEnv());
  // Secrets are not needed to list ACLs: every ${ENV} reference resolves to a placeholder when unset.
  const env = new Proxy(process.env, { get: (target, name: string) => target[name] ?? "placeholder-not-a-secret" });
  const plan = planAcls(validateConfigText(readFileSync(file, "utf8"), file, env));
  if (format !== "strimzi") process.stdout.write(renderAclCommands(plan, principal));
  if (format === "both") process.stdout.write("\n# Strimzi KafkaUser resources\n");
  if (format !== "commands") process.stdout.write(renderStrimziUsers(plan, principal));
  return 0;
}

try {
  process.exit(runAcls(process.argv.slice(2)));
} catch (err) {
  process.stderr.write(`acls: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
