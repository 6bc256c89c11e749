import { parseAllDocuments, stringify } from "yaml";
import { ConfigError } from "@/lib/errors";
import { type Mm2ConfigImport, readPolicyOverride } from "./config-from-mm2";
import { type ClusterSecurity, type ImportLog, nameEnvVar, readMm2ClusterSecurity } from "./mm2-security";

/** Where `npm run init -- --from-strimzi` expects each referenced Kubernetes Secret to be mounted. */
export const secretMountRoot = "/etc/gapwatch-secrets";

/**
 * The old layout's worker topics when the connect cluster's `config` does not name them: the defaults of Strimzi's
 * KafkaMirrorMaker2Cluster (cluster-operator, before commit 5abe775 removed the layout).
 */
const oldLayoutTopics = {
  configs: "mirrormaker2-cluster-configs",
  offsets: "mirrormaker2-cluster-offsets",
  status: "mirrormaker2-cluster-status",
};

type Obj = Record<string, unknown>;

interface StrimziCluster {
  alias: string;
  bootstrap: string;
  security: ClusterSecurity;
}

interface Layout {
  clusters: { spec: Obj; where: string }[];
  target: string;
  topics: { configs: string; offsets: string; status: string };
  flows: { source: string; target: string; connectorConfig: Obj }[];
}

/**
 * Builds Gapwatch's config from a Strimzi `KafkaMirrorMaker2` resource (kafka.strimzi.io v1/v1beta2): the current
 * layout (`spec.target` + `spec.mirrors[].source`, Strimzi's KafkaMirrorMaker2TargetClusterSpec / ClusterSpec) or the
 * older one (`spec.connectCluster` + `spec.clusters[]` + `spec.mirrors[].sourceCluster/targetCluster`). Each cluster's
 * `tls.trustedCertificates` and `authentication` become file paths under /etc/gapwatch-secrets/<Secret> and `${ENV}`
 * references; the Connect cluster gets MM2's REST Service and, as the fallback, its internal topics.
 */
export function buildConfigFromStrimzi(text: string, sourceName: string): Mm2ConfigImport {
  const resource = findMirrorMaker2(text, sourceName);
  const metadata = asObject(resource.metadata);
  const name = metadata?.name;
  if (typeof name !== "string" || name === "")
    throw new ConfigError(`${sourceName}: metadata.name is missing; Strimzi names MM2's Services after it`);
  const spec = asObject(resource.spec);
  if (spec === null) throw new ConfigError(`${sourceName}: the KafkaMirrorMaker2 has no spec`);
  const layout = spec.target !== undefined ? readCurrentLayout(spec, sourceName) : readOldLayout(spec, sourceName);
  const log: ImportLog = { envVars: [], notes: [] };
  const mounts = new Map<string, string>();
  const clusters = layout.clusters.map(({ spec: c, where }) => readCluster(c, where, sourceName, log, mounts));
  const connect = {
    name,
    url: `http://${name}-mirrormaker2-api:8083`,
    internalTopics: { cluster: layout.target, ...layout.topics },
  };
  const flows = Object.fromEntries(
    layout.flows.map((f) => {
      const policy = readPolicyOverride(new Map(Object.entries(f.connectorConfig).map(([k, v]) => [k, String(v)])));
      return [
        `${f.source}->${f.target}`,
        { rpoSeconds: 300, ...(policy === null ? {} : { replicationPolicy: policy }) },
      ];
    }),
  );
  const config = {
    clusters: clusters.map((c) => ({ alias: c.alias, bootstrap: c.bootstrap, ...c.security })),
    connect: [connect],
    pollIntervalSeconds: 10,
    flows,
  };
  for (const [secret, keys] of mounts)
    log.notes.push(`mount Secret ${secret} (${keys}) at ${secretMountRoot}/${secret} (Helm: extraSecretMounts)`);
  log.notes.push(
    `Connect REST is ${connect.url} in ${typeof metadata?.namespace === "string" ? `namespace ${metadata.namespace}` : "the KafkaMirrorMaker2's namespace"}: ` +
      "Strimzi's NetworkPolicy admits only MM2's pods and the Cluster Operator, so Gapwatch reads the internal topics when it cannot reach it " +
      "(apply deploy/strimzi/mm2-rest-networkpolicy.yaml to allow it; from another namespace use <service>.<namespace>.svc)",
  );
  const header = [
    `# Written by \`npm run init -- --from-strimzi ${sourceName}\` from the KafkaMirrorMaker2 ${name}.`,
    `# Flows MM2 runs: ${Object.keys(flows).join(", ") || "none"}. rpoSeconds is the failover readiness objective: adjust it.`,
    ...(log.envVars.length === 0
      ? []
      : ["# Set before starting Gapwatch:", ...log.envVars.map((v) => `#   ${v.name}: ${v.why}`)]),
    "",
  ].join("\n");
  return { yaml: header + stringify(config), envVars: log.envVars, notes: log.notes };
}

function findMirrorMaker2(text: string, sourceName: string): Obj {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) throw new ConfigError(`${sourceName}: not valid YAML`);
  const kinds: string[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new ConfigError(`${sourceName}: not valid YAML: ${doc.errors[0]!.message}`);
    const value = asObject(doc.toJS());
    // `kubectl get kafkamirrormaker2 -o yaml` without a name answers a List of them.
    const items = value?.kind === "List" && Array.isArray(value.items) ? value.items.map(asObject) : [value];
    const found = items.find((item) => item?.kind === "KafkaMirrorMaker2");
    if (found) return found;
    kinds.push(...items.map((item) => String(item?.kind ?? "no kind")));
  }
  throw new ConfigError(
    `${sourceName}: no \`kind: KafkaMirrorMaker2\` resource (found: ${kinds.join(", ") || "nothing"}); export it with kubectl get kafkamirrormaker2 <name> -o yaml`,
  );
}

/** `spec.target` (alias, bootstrapServers, the worker's group and topic names) and `spec.mirrors[].source`. */
function readCurrentLayout(spec: Obj, sourceName: string): Layout {
  const target = requireObject(spec.target, "spec.target", sourceName);
  const alias = requireString(target.alias, "spec.target.alias", sourceName);
  const topics = {
    configs: requireString(target.configStorageTopic, "spec.target.configStorageTopic", sourceName),
    offsets: requireString(target.offsetStorageTopic, "spec.target.offsetStorageTopic", sourceName),
    status: requireString(target.statusStorageTopic, "spec.target.statusStorageTopic", sourceName),
  };
  const clusters = [{ spec: target, where: "spec.target" }];
  const flows: Layout["flows"] = [];
  listMirrors(spec, sourceName).forEach((mirror, i) => {
    const source = requireObject(mirror.source, `spec.mirrors[${i}].source`, sourceName);
    const sourceAlias = requireString(source.alias, `spec.mirrors[${i}].source.alias`, sourceName);
    if (!clusters.some((c) => c.spec.alias === sourceAlias))
      clusters.push({ spec: source, where: `spec.mirrors[${i}].source` });
    flows.push({ source: sourceAlias, target: alias, connectorConfig: readConnectorConfig(mirror) });
  });
  return { clusters, target: alias, topics, flows };
}

/** `spec.connectCluster` names the cluster of `spec.clusters[]` holding the Connect worker's topics. */
function readOldLayout(spec: Obj, sourceName: string): Layout {
  if (!Array.isArray(spec.clusters)) {
    throw new ConfigError(
      `${sourceName}: spec.target (current layout) or spec.clusters with spec.connectCluster (older layout) is required`,
    );
  }
  const clusters = spec.clusters.map((c, i) => ({
    spec: requireObject(c, `spec.clusters[${i}]`, sourceName),
    where: `spec.clusters[${i}]`,
  }));
  const aliases = clusters.map((c, i) => requireString(c.spec.alias, `spec.clusters[${i}].alias`, sourceName));
  const target = requireString(spec.connectCluster, "spec.connectCluster", sourceName);
  const connectCluster = clusters.find((c) => c.spec.alias === target);
  if (connectCluster === undefined)
    throw new ConfigError(
      `${sourceName}: spec.connectCluster ${target} is not an alias of spec.clusters (${aliases.join(", ")})`,
    );
  const worker = asObject(connectCluster.spec.config) ?? {};
  const topic = (key: string, fallback: string) => (typeof worker[key] === "string" ? worker[key] : fallback);
  const topics = {
    configs: topic("config.storage.topic", oldLayoutTopics.configs),
    offsets: topic("offset.storage.topic", oldLayoutTopics.offsets),
    status: topic("status.storage.topic", oldLayoutTopics.status),
  };
  const flows = listMirrors(spec, sourceName).map((mirror, i) => {
    const source = requireString(mirror.sourceCluster, `spec.mirrors[${i}].sourceCluster`, sourceName);
    const flowTarget = requireString(mirror.targetCluster, `spec.mirrors[${i}].targetCluster`, sourceName);
    for (const [alias, field] of [
      [source, "sourceCluster"],
      [flowTarget, "targetCluster"],
    ] as const) {
      if (!aliases.includes(alias))
        throw new ConfigError(
          `${sourceName}: spec.mirrors[${i}].${field} ${alias} is not an alias of spec.clusters (${aliases.join(", ")})`,
        );
    }
    return { source, target: flowTarget, connectorConfig: readConnectorConfig(mirror) };
  });
  return { clusters, target, topics, flows };
}

function listMirrors(spec: Obj, sourceName: string): Obj[] {
  if (!Array.isArray(spec.mirrors) || spec.mirrors.length === 0)
    throw new ConfigError(`${sourceName}: spec.mirrors is empty; MM2 replicates nothing`);
  return spec.mirrors.map((m, i) => requireObject(m, `spec.mirrors[${i}]`, sourceName));
}

function readConnectorConfig(mirror: Obj): Obj {
  return asObject(asObject(mirror.sourceConnector)?.config) ?? {};
}

function readCluster(
  spec: Obj,
  where: string,
  sourceName: string,
  log: ImportLog,
  mounts: Map<string, string>,
): StrimziCluster {
  const alias = requireString(spec.alias, `${where}.alias`, sourceName);
  const bootstrap = requireString(spec.bootstrapServers, `${where}.bootstrapServers`, sourceName);
  const tlsSpec = asObject(spec.tls);
  const security: ClusterSecurity = {};
  if (tlsSpec !== null) security.tls = readTrustedCertificates(alias, tlsSpec, where, log, mounts);
  const auth = asObject(spec.authentication);
  if (auth !== null)
    readAuthentication({ alias, bootstrap }, auth, `${where}.authentication`, sourceName, security, log, mounts);
  return { alias, bootstrap, security };
}

/** `tls.trustedCertificates[]` (CertSecretSource: secretName with certificate or pattern) → a mounted CA file. */
function readTrustedCertificates(
  alias: string,
  tls: Obj,
  where: string,
  log: ImportLog,
  mounts: Map<string, string>,
): true | Record<string, string> {
  const certs = Array.isArray(tls.trustedCertificates)
    ? tls.trustedCertificates.map(asObject).filter((c) => c !== null)
    : [];
  if (certs.length === 0) return true;
  const files = certs.map((cert) => {
    const secret = String(cert.secretName);
    // A cluster CA Secret (<cluster>-cluster-ca-cert) holds ca.crt; a pattern such as "*.crt" matches it.
    const key = typeof cert.certificate === "string" ? cert.certificate : "ca.crt";
    if (typeof cert.certificate !== "string" && !secret.endsWith("-cluster-ca-cert")) {
      log.notes.push(
        `${alias}: ${where}.tls.trustedCertificates matches ${String(cert.pattern)} in Secret ${secret}; Gapwatch assumed the key ca.crt: check it`,
      );
    }
    addMount(mounts, secret, key);
    return `${secretMountRoot}/${secret}/${key}`;
  });
  if (files.length > 1) {
    log.notes.push(
      `${alias}: ${where}.tls.trustedCertificates lists ${files.length} certificates; Gapwatch takes one CA file: concatenate ${files.join(", ")} into one PEM and set caFile to it`,
    );
  }
  return { caFile: files[0]! };
}

function readAuthentication(
  { alias, bootstrap }: { alias: string; bootstrap: string },
  auth: Obj,
  where: string,
  sourceName: string,
  security: ClusterSecurity,
  log: ImportLog,
  mounts: Map<string, string>,
): void {
  const type = auth.type;
  if (type === "tls") {
    const pair = requireObject(auth.certificateAndKey, `${where}.certificateAndKey`, sourceName);
    const secret = requireString(pair.secretName, `${where}.certificateAndKey.secretName`, sourceName);
    const cert = requireString(pair.certificate, `${where}.certificateAndKey.certificate`, sourceName);
    const key = requireString(pair.key, `${where}.certificateAndKey.key`, sourceName);
    addMount(mounts, secret, `${cert}, ${key}`);
    const tls = typeof security.tls === "object" ? security.tls : {};
    security.tls = {
      ...tls,
      certFile: `${secretMountRoot}/${secret}/${cert}`,
      keyFile: `${secretMountRoot}/${secret}/${key}`,
    };
    return;
  }
  if (type === "scram-sha-512" || type === "scram-sha-256" || type === "plain") {
    const username = requireString(auth.username, `${where}.username`, sourceName);
    const secretRef = requireObject(auth.passwordSecret, `${where}.passwordSecret`, sourceName);
    const envVar = nameEnvVar(alias, "SASL_PASSWORD");
    log.envVars.push({
      name: envVar,
      why: `key ${String(secretRef.password)} of Secret ${String(secretRef.secretName)} (${username}'s password on ${alias})`,
    });
    security.sasl = { mechanism: type.toUpperCase(), username, password: `\${${envVar}}` };
    return;
  }
  if (type === "oauth") {
    security.sasl = readStrimziOauth(alias, auth, where, sourceName, log);
    return;
  }
  if (type === "custom") {
    // Strimzi's custom authentication passes `config` to the Kafka client as is: the same keys as mm2.properties.
    const config = asObject(auth.config) ?? {};
    const protocol =
      auth.sasl === true
        ? security.tls === undefined
          ? "SASL_PLAINTEXT"
          : "SASL_SSL"
        : security.tls === undefined
          ? "PLAINTEXT"
          : "SSL";
    const settings: Obj = { ...config, "security.protocol": protocol, "bootstrap.servers": bootstrap };
    const setting = (key: string): string | undefined =>
      settings[key] === undefined ? undefined : String(settings[key]);
    const custom = readMm2ClusterSecurity(alias, setting, `${sourceName}: ${where}.config`, log);
    if (custom.sasl !== undefined) security.sasl = custom.sasl;
    return;
  }
  throw new ConfigError(
    `${sourceName}: ${where}.type ${JSON.stringify(type)} is not one Gapwatch maps (tls, scram-sha-512, scram-sha-256, plain, oauth, custom)`,
  );
}

/** Strimzi's older `type: oauth` (KafkaClientAuthenticationOAuth): only its client credentials grant maps. */
function readStrimziOauth(
  alias: string,
  auth: Obj,
  where: string,
  sourceName: string,
  log: ImportLog,
): Record<string, string | Record<string, string>> {
  const endpoint = requireString(auth.tokenEndpointUri, `${where}.tokenEndpointUri`, sourceName);
  const clientId = requireString(auth.clientId, `${where}.clientId`, sourceName);
  const secretRef = asObject(auth.clientSecret);
  if (secretRef === null) {
    throw new ConfigError(
      `${sourceName}: ${where}: Gapwatch uses the client credentials grant; give clientSecret (a Secret reference), not a refresh token, access token or password grant`,
    );
  }
  const envVar = nameEnvVar(alias, "OAUTH_CLIENT_SECRET");
  log.envVars.push({
    name: envVar,
    why: `key ${String(secretRef.key)} of Secret ${String(secretRef.secretName)} (${clientId}'s client secret on ${alias})`,
  });
  const sasl: Record<string, string | Record<string, string>> = {
    mechanism: "OAUTHBEARER",
    tokenEndpointUrl: endpoint,
    clientId,
    clientSecret: `\${${envVar}}`,
  };
  if (typeof auth.scope === "string") sasl.scope = auth.scope;
  const extensions = asObject(auth.saslExtensions);
  if (extensions !== null)
    sasl.extensions = Object.fromEntries(Object.entries(extensions).map(([k, v]) => [k, String(v)]));
  if (auth.tlsTrustedCertificates !== undefined) {
    log.notes.push(
      `${alias}: ${where}.tlsTrustedCertificates (the token endpoint's CA) is not carried over: give it to Node as NODE_EXTRA_CA_CERTS`,
    );
  }
  return sasl;
}

function addMount(mounts: Map<string, string>, secret: string, keys: string): void {
  const known = mounts.get(secret);
  mounts.set(secret, known === undefined ? keys : `${known}, ${keys}`);
}

function asObject(value: unknown): Obj | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : null;
}

function requireObject(value: unknown, field: string, sourceName: string): Obj {
  const obj = asObject(value);
  if (obj === null) throw new ConfigError(`${sourceName}: ${field} is missing or not a mapping`);
  return obj;
}

function requireString(value: unknown, field: string, sourceName: string): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new ConfigError(`${sourceName}: ${field} is missing; the KafkaMirrorMaker2 must set it`);
  return value.trim();
}
