import { ConfigError } from "@/lib/errors";

/** An environment variable a written config refers to, and what the operator must put in it. */
export interface EnvVarNeed {
  name: string;
  why: string;
}

/** What `npm run init` collects while it maps one cluster: env references to set and steps left to the operator. */
export interface ImportLog {
  envVars: EnvVarNeed[];
  notes: string[];
}

/** A cluster's `tls` and `sasl` sections as Gapwatch's schema takes them (lib/config/tls.ts, lib/config/sasl.ts). */
export interface ClusterSecurity {
  tls?: true | Record<string, string | boolean>;
  sasl?: Record<string, string | Record<string, string>>;
}

type Setting = (key: string) => string | undefined;

const passwordMechanisms = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];
/** aws-msk-iam-auth's login modules: SASL/AWS_MSK_IAM (IAMLoginModule) and its OAUTHBEARER flavour. */
const mskIamModules = [
  "software.amazon.msk.auth.iam.IAMLoginModule",
  "software.amazon.msk.auth.iam.IAMOAuthBearerLoginModule",
];
const oauthLoginModule = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

/** `GAPWATCH_<ALIAS>_<WHAT>`: an env name from an alias that may hold '.', '-' or lower case. */
export function nameEnvVar(alias: string, what: string): string {
  return `GAPWATCH_${alias.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${what}`;
}

/**
 * Maps one MM2 cluster's Kafka client security settings (`<alias>.security.protocol`, `ssl.*`, `sasl.*`; Kafka's
 * CommonClientConfigs, SslConfigs and SaslConfigs names) to Gapwatch's `tls` and `sasl`. Secrets become `${ENV}`
 * references; Java key stores become the PEM/PKCS12 files to export, with the commands in `log.notes`.
 */
export function readMm2ClusterSecurity(
  alias: string,
  setting: Setting,
  source: string,
  log: ImportLog,
): ClusterSecurity {
  const protocol = (setting("security.protocol") ?? "PLAINTEXT").toUpperCase();
  if (!["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"].includes(protocol)) {
    throw new ConfigError(
      `${source}: ${alias}.security.protocol = ${protocol} is not a Kafka security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)`,
    );
  }
  const security: ClusterSecurity = {};
  if (protocol === "SSL" || protocol === "SASL_SSL") security.tls = readMm2Tls(alias, setting, log);
  if (protocol === "SASL_PLAINTEXT" || protocol === "SASL_SSL") {
    const sasl = readMm2Sasl(alias, setting, source, log);
    if (sasl !== null) security.sasl = sasl;
  }
  return security;
}

function readMm2Tls(alias: string, setting: Setting, log: ImportLog): ClusterSecurity["tls"] {
  const tls: Record<string, string | boolean> = {};
  const base = alias.toLowerCase().replace(/[^a-z0-9._-]/g, "-");
  const truststore = setting("ssl.truststore.location");
  const truststoreType = (setting("ssl.truststore.type") ?? "JKS").toUpperCase();
  if (setting("ssl.truststore.certificates") !== undefined) {
    tls.caFile = `${base}-ca.pem`;
    log.notes.push(
      `${alias}: ssl.truststore.certificates holds the CA as PEM text: save it as ${tls.caFile} next to the config`,
    );
  } else if (truststore !== undefined && truststoreType === "PEM") {
    tls.caFile = truststore;
  } else if (truststore !== undefined) {
    tls.caFile = `${base}-ca.pem`;
    log.notes.push(
      `${alias}: MM2 trusts ${truststore} (a ${truststoreType} truststore); Gapwatch takes the CA as PEM. List its entries with ` +
        `keytool -list -keystore ${truststore} -storetype ${truststoreType}, then export the CA next to the config: ` +
        `keytool -exportcert -rfc -keystore ${truststore} -storetype ${truststoreType} -alias <ca alias> -file ${tls.caFile}`,
    );
  }
  readMm2Keystore(alias, base, setting, tls, log);
  // An empty ssl.endpoint.identification.algorithm turns host name checks off in Kafka's client (SslFactory).
  if (setting("ssl.endpoint.identification.algorithm")?.trim() === "") tls.verifyHostname = false;
  return Object.keys(tls).length === 0 ? true : tls;
}

/** The client certificate (mTLS): a PKCS12 keystore as is, a JKS one converted, a PEM one as cert and key files. */
function readMm2Keystore(
  alias: string,
  base: string,
  setting: Setting,
  tls: Record<string, string | boolean>,
  log: ImportLog,
): void {
  const keystore = setting("ssl.keystore.location");
  const type = (setting("ssl.keystore.type") ?? "JKS").toUpperCase();
  if (setting("ssl.keystore.certificate.chain") !== undefined || setting("ssl.keystore.key") !== undefined) {
    tls.certFile = `${base}-client.crt`;
    tls.keyFile = `${base}-client.key`;
    log.notes.push(
      `${alias}: ssl.keystore.certificate.chain and ssl.keystore.key hold the client certificate as PEM text: save them as ${tls.certFile} and ${tls.keyFile}`,
    );
    addKeyPassword(alias, setting, tls, log);
    return;
  }
  if (keystore === undefined) return;
  if (type === "PEM") {
    tls.certFile = keystore;
    tls.keyFile = keystore;
    addKeyPassword(alias, setting, tls, log);
    return;
  }
  const passwordVar = nameEnvVar(alias, "KEYSTORE_PASSWORD");
  tls.keystorePassword = `\${${passwordVar}}`;
  log.envVars.push({
    name: passwordVar,
    why: `the password of ${alias}'s client keystore (ssl.keystore.password; never copied from the properties)`,
  });
  if (type === "PKCS12") {
    tls.keystoreFile = keystore;
    if (setting("ssl.key.password") !== undefined)
      log.notes.push(
        `${alias}: ssl.key.password is set: Gapwatch opens the PKCS12 keystore and its key with the one keystore password`,
      );
    return;
  }
  tls.keystoreFile = `${base}-client.p12`;
  log.notes.push(
    `${alias}: MM2's client keystore ${keystore} is ${type}; Gapwatch reads PKCS12. Convert it next to the config: ` +
      `keytool -importkeystore -srckeystore ${keystore} -srcstoretype ${type} -destkeystore ${tls.keystoreFile} -deststoretype PKCS12 ` +
      `(give the destination the keystore password, set in ${passwordVar})`,
  );
}

function addKeyPassword(alias: string, setting: Setting, tls: Record<string, string | boolean>, log: ImportLog): void {
  if (setting("ssl.key.password") === undefined) return;
  const name = nameEnvVar(alias, "KEY_PASSWORD");
  tls.keyPassword = `\${${name}}`;
  log.envVars.push({ name, why: `the passphrase of ${alias}'s client private key (ssl.key.password)` });
}

function readMm2Sasl(alias: string, setting: Setting, source: string, log: ImportLog): ClusterSecurity["sasl"] | null {
  const mechanism = (setting("sasl.mechanism") ?? "GSSAPI").toUpperCase();
  const jaas = setting("sasl.jaas.config") ?? "";
  const loginModule = /^\s*([\w.$]+)/.exec(jaas)?.[1] ?? "";
  const handler = setting("sasl.client.callback.handler.class") ?? setting("sasl.login.callback.handler.class") ?? "";
  if (
    mechanism === "AWS_MSK_IAM" ||
    mskIamModules.includes(loginModule) ||
    handler.startsWith("software.amazon.msk.auth.iam.")
  ) {
    return readMskIam(alias, setting, jaas, log);
  }
  if (mechanism === "OAUTHBEARER") return readOauth(alias, setting, source, jaas, loginModule, log);
  if (!passwordMechanisms.includes(mechanism)) {
    log.notes.push(
      `${alias}: SASL mechanism ${mechanism} is not supported by Gapwatch (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM); ` +
        `give it a SCRAM user or an OAuth client and fill in clusters[${alias}].sasl`,
    );
    return null;
  }
  const username = readJaasOption(jaas, "username");
  const passwordVar = nameEnvVar(alias, "SASL_PASSWORD");
  log.envVars.push({
    name: passwordVar,
    why: `the SASL password of ${username ?? "the user"} on ${alias} (never copied from the properties)`,
  });
  if (username === undefined)
    log.notes.push(`${alias}: no username in sasl.jaas.config; fill in clusters[${alias}].sasl.username`);
  return { mechanism, username: username ?? "CHANGE-ME", password: `\${${passwordVar}}` };
}

/**
 * OAUTHBEARER with the client credentials grant: the token endpoint from sasl.oauthbearer.token.endpoint.url (KIP-768),
 * the client from Kafka 4.1's sasl.oauthbearer.client.credentials.client.id / sasl.oauthbearer.scope (KIP-1139) or the
 * JAAS options clientId/scope, and SASL extensions from the JAAS options `extension_<name>` (OAuthBearerLoginModule).
 */
function readOauth(
  alias: string,
  setting: Setting,
  source: string,
  jaas: string,
  loginModule: string,
  log: ImportLog,
): ClusterSecurity["sasl"] {
  if (loginModule !== "" && loginModule !== oauthLoginModule) {
    throw new ConfigError(
      `${source}: ${alias}.sasl.jaas.config uses ${loginModule}; Gapwatch maps OAUTHBEARER only with Kafka's ${oauthLoginModule} (client credentials) or MSK IAM`,
    );
  }
  const endpoint = setting("sasl.oauthbearer.token.endpoint.url");
  if (endpoint === undefined) {
    throw new ConfigError(
      `${source}: ${alias}.sasl.oauthbearer.token.endpoint.url is missing; Gapwatch gets OAUTHBEARER tokens from an OIDC token endpoint ` +
        "(client credentials) and cannot use Kafka's unsecured tokens or a custom login callback handler",
    );
  }
  if (!/^https?:\/\//i.test(endpoint)) {
    throw new ConfigError(
      `${source}: ${alias}.sasl.oauthbearer.token.endpoint.url = ${endpoint}: Gapwatch needs the http(s) token endpoint (client credentials), not a token file`,
    );
  }
  // Kafka's precedence (SaslConfigs, 4.1+): the sasl.oauthbearer.* setting, then the deprecated JAAS option.
  const clientId = setting("sasl.oauthbearer.client.credentials.client.id") ?? readJaasOption(jaas, "clientId");
  const secretVar = nameEnvVar(alias, "OAUTH_CLIENT_SECRET");
  log.envVars.push({
    name: secretVar,
    why: `the OAuth client secret of ${clientId ?? "the client"} on ${alias} (never copied from the properties)`,
  });
  if (clientId === undefined)
    log.notes.push(`${alias}: no clientId in sasl.jaas.config; fill in clusters[${alias}].sasl.clientId`);
  const sasl: Record<string, string | Record<string, string>> = {
    mechanism: "OAUTHBEARER",
    tokenEndpointUrl: endpoint,
    clientId: clientId ?? "CHANGE-ME",
    clientSecret: `\${${secretVar}}`,
  };
  const scope = setting("sasl.oauthbearer.scope") ?? readJaasOption(jaas, "scope");
  if (scope !== undefined) sasl.scope = scope;
  const extensions = Object.fromEntries(
    [...jaas.matchAll(/\bextension_(\w+)\s*=\s*"([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
  );
  if (Object.keys(extensions).length > 0) sasl.extensions = extensions;
  return sasl;
}

/**
 * MSK IAM: the region from the brokers' host names (b-1.<cluster>.<id>.c2.kafka.<region>.amazonaws.com), profile and
 * role from aws-msk-iam-auth's JAAS options (awsProfileName, awsRoleArn, awsRoleSessionName).
 */
function readMskIam(alias: string, setting: Setting, jaas: string, log: ImportLog): ClusterSecurity["sasl"] {
  const region = /\.kafka(?:-serverless)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com/.exec(
    setting("bootstrap.servers") ?? "",
  )?.[1];
  const sasl: Record<string, string> = { mechanism: "AWS_MSK_IAM", region: region ?? "${AWS_REGION}" };
  if (region === undefined) {
    log.envVars.push({
      name: "AWS_REGION",
      why: `the AWS region of ${alias}'s MSK cluster (not in its bootstrap host names)`,
    });
  }
  const profile = readJaasOption(jaas, "awsProfileName");
  const roleArn = readJaasOption(jaas, "awsRoleArn");
  const sessionName = readJaasOption(jaas, "awsRoleSessionName");
  if (roleArn !== undefined) {
    sasl.roleArn = roleArn;
    if (sessionName !== undefined) sasl.roleSessionName = sessionName;
  } else if (profile !== undefined) {
    sasl.profile = profile;
  }
  log.notes.push(
    `${alias}: MSK IAM signs with AWS credentials from the default chain (env, profile, EKS web identity)${roleArn === undefined ? "" : ` and assumes ${roleArn}`}; ` +
      "give that identity the IAM policy in docs/authentication-oauth.md; not tested against a live MSK",
  );
  return sasl;
}

/** A JAAS option `name="value"` (Kafka's JaasConfig: quoted values; unquoted ones are tokens without blanks or ';'). */
function readJaasOption(jaas: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|([^\\s;"]+))`).exec(jaas);
  return match === null ? undefined : (match[1] ?? match[2]);
}
