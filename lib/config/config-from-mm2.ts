import { stringify } from "yaml";
import { ConfigError } from "@/lib/errors";
import { type ClusterSecurity, type EnvVarNeed, readMm2ClusterSecurity } from "./mm2-security";

/** A gapwatch.config.yaml written from MM2's own properties, and what the operator must still do. */
export interface Mm2ConfigImport {
  yaml: string;
  /** Environment variables the config refers to (secrets are never copied). */
  envVars: EnvVarNeed[];
  /** What could not be carried over and how to finish it. */
  notes: string[];
}

interface ClusterEntry extends ClusterSecurity {
  alias: string;
  bootstrap: string;
}

/**
 * Builds Gapwatch's config from a dedicated-mode MM2 properties file (connect-mirror-maker.sh's
 * mm2.properties): one cluster per alias of `clusters` with its `<alias>.bootstrap.servers` and
 * security settings. Passwords become `${GAPWATCH_<ALIAS>_SASL_PASSWORD}` references; a Java
 * truststore becomes a PEM path to export. MM2 settings apply per cluster with the alias prefix
 * and fall back to the unprefixed key (MirrorMakerConfig.clusterProps).
 */
export function buildConfigFromMm2Properties(props: ReadonlyMap<string, string>, sourceName: string): Mm2ConfigImport {
  const aliases = (props.get("clusters") ?? "").split(",").map((a) => a.trim()).filter((a) => a.length > 0);
  if (aliases.length === 0) throw new ConfigError(`${sourceName}: no \`clusters\` line; MM2's properties list the cluster aliases, e.g. clusters = A, B`);
  const envVars: Mm2ConfigImport["envVars"] = [];
  const notes: string[] = [];
  const clusters = aliases.map((alias) => buildCluster(alias, props, sourceName, envVars, notes));
  const flows = listEnabledFlows(props, aliases);
  if (flows.length === 0) notes.push(`no <source>-><target>.enabled = true line: MM2 replicates nothing with these properties`);
  const policy = readPolicyOverride(props);
  const config = {
    clusters,
    connect: [],
    pollIntervalSeconds: 10,
    flows: Object.fromEntries(flows.map((id) => [id, { rpoSeconds: 300, ...(policy === null ? {} : { replicationPolicy: policy }) }])),
  };
  const header = [
    `# Written by \`npm run init -- --from ${sourceName}\` from MirrorMaker 2's own properties.`,
    "# Dedicated-mode MM2 has no Connect REST API: Gapwatch finds its flows from mm2-offsets.<source>.internal",
    "# and its task states from mm2-status.<source>.internal on each target cluster.",
    `# Flows MM2 runs: ${flows.join(", ") || "none"}. rpoSeconds is the failover readiness objective: adjust it.`,
    ...(envVars.length === 0 ? [] : ["# Set before starting Gapwatch:", ...envVars.map((v) => `#   ${v.name}: ${v.why}`)]),
    "",
  ].join("\n");
  return { yaml: header + stringify(config), envVars, notes };
}

function buildCluster(alias: string, props: ReadonlyMap<string, string>, sourceName: string, envVars: EnvVarNeed[], notes: string[]): ClusterEntry {
  const setting = (key: string): string | undefined => props.get(`${alias}.${key}`) ?? props.get(key);
  const bootstrap = props.get(`${alias}.bootstrap.servers`);
  if (bootstrap === undefined || bootstrap.trim() === "") throw new ConfigError(`${sourceName}: ${alias}.bootstrap.servers is missing; every alias in \`clusters\` needs one`);
  const servers = bootstrap.split(",").map((s) => s.trim()).filter((s) => s !== "").join(",");
  return { alias, bootstrap: servers, ...readMm2ClusterSecurity(alias, setting, sourceName, { envVars, notes }) };
}

/** `A->B.enabled = true` lines, in file order. */
function listEnabledFlows(props: ReadonlyMap<string, string>, aliases: string[]): string[] {
  const flows: string[] = [];
  for (const [key, value] of props) {
    const match = /^([^.\s]+)->([^.\s]+)\.enabled$/.exec(key);
    if (match === null || value.trim().toLowerCase() !== "true") continue;
    if (aliases.includes(match[1]!) && aliases.includes(match[2]!)) flows.push(`${match[1]}->${match[2]}`);
  }
  return flows;
}

/** MM2's IdentityReplicationPolicy or a custom separator (replication.policy.class / .separator), which Gapwatch cannot see in dedicated mode. */
export function readPolicyOverride(props: ReadonlyMap<string, string>): { kind: "default" | "identity"; separator?: string } | null {
  const policyClass = props.get("replication.policy.class");
  const separator = props.get("replication.policy.separator");
  const identity = policyClass !== undefined && policyClass.endsWith("IdentityReplicationPolicy");
  if (!identity && separator === undefined) return null;
  return { kind: identity ? "identity" : "default", ...(separator === undefined ? {} : { separator }) };
}
