import { stringify } from "yaml";
import { ConfigError } from "@/lib/errors";

/** A gapwatch.config.yaml written from MM2's own properties, and what the operator must still do. */
export interface Mm2ConfigImport {
  yaml: string;
  /** Environment variables the config refers to (secrets are never copied). */
  envVars: { name: string; why: string }[];
  /** What could not be carried over and how to finish it. */
  notes: string[];
}

interface ClusterEntry {
  alias: string;
  bootstrap: string;
  tls?: true | { ca: string };
  sasl?: { mechanism: string; username: string; password: string };
}

const saslMechanisms = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];

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

function buildCluster(alias: string, props: ReadonlyMap<string, string>, sourceName: string, envVars: Mm2ConfigImport["envVars"], notes: string[]): ClusterEntry {
  const setting = (key: string): string | undefined => props.get(`${alias}.${key}`) ?? props.get(key);
  const bootstrap = props.get(`${alias}.bootstrap.servers`);
  if (bootstrap === undefined || bootstrap.trim() === "") throw new ConfigError(`${sourceName}: ${alias}.bootstrap.servers is missing; every alias in \`clusters\` needs one`);
  const entry: ClusterEntry = { alias, bootstrap: bootstrap.split(",").map((s) => s.trim()).filter((s) => s !== "").join(",") };
  const protocol = (setting("security.protocol") ?? "PLAINTEXT").toUpperCase();
  if (protocol === "SSL" || protocol === "SASL_SSL") entry.tls = readTls(alias, setting, notes);
  if (protocol === "SASL_PLAINTEXT" || protocol === "SASL_SSL") {
    const sasl = readSasl(alias, setting, envVars, notes);
    if (sasl !== null) entry.sasl = sasl;
  }
  return entry;
}

function readTls(alias: string, setting: (key: string) => string | undefined, notes: string[]): true | { ca: string } {
  const truststore = setting("ssl.truststore.location");
  if (truststore === undefined) return true;
  const pem = `${alias.toLowerCase()}-ca.pem`;
  notes.push(`${alias}: MM2 trusts ${truststore} (a Java truststore); export its CA as PEM next to the config: keytool -exportcert -rfc -keystore ${truststore} -alias <ca alias> -file ${pem}`);
  return { ca: pem };
}

function readSasl(alias: string, setting: (key: string) => string | undefined, envVars: Mm2ConfigImport["envVars"], notes: string[]): ClusterEntry["sasl"] | null {
  const mechanism = (setting("sasl.mechanism") ?? "GSSAPI").toUpperCase();
  if (!saslMechanisms.includes(mechanism)) {
    notes.push(`${alias}: SASL mechanism ${mechanism} is not supported by Gapwatch (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); give it a SCRAM user`);
    return null;
  }
  const username = /username\s*=\s*"([^"]*)"/.exec(setting("sasl.jaas.config") ?? "")?.[1];
  const passwordVar = `GAPWATCH_${alias.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_SASL_PASSWORD`;
  envVars.push({ name: passwordVar, why: `the SASL password of ${username ?? "the user"} on ${alias} (never copied from the properties)` });
  if (username === undefined) notes.push(`${alias}: no username in sasl.jaas.config; fill in clusters[${alias}].sasl.username`);
  return { mechanism, username: username ?? "CHANGE-ME", password: `\${${passwordVar}}` };
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

/** MM2's IdentityReplicationPolicy or a custom separator, which Gapwatch cannot see in dedicated mode. */
function readPolicyOverride(props: ReadonlyMap<string, string>): { kind: "default" | "identity"; separator?: string } | null {
  const policyClass = props.get("replication.policy.class");
  const separator = props.get("replication.policy.separator");
  const identity = policyClass !== undefined && policyClass.endsWith("IdentityReplicationPolicy");
  if (!identity && separator === undefined) return null;
  return { kind: identity ? "identity" : "default", ...(separator === undefined ? {} : { separator }) };
}
