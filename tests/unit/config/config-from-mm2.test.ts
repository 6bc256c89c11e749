import { describe, expect, it } from "vitest";
import { buildConfigFromMm2Properties } from "@/lib/config/config-from-mm2";
import { parseJavaProperties } from "@/lib/config/java-properties";
import { validateConfigText } from "@/lib/config/load";

/** An mm2.properties as Kafka's docs write it (connect-mirror-maker.properties), with security for one cluster. */
const mm2Properties = `# specify any number of cluster aliases
clusters = A, B

# connection information for each cluster
A.bootstrap.servers = A_host1:9092, A_host2:9092, A_host3:9092
B.bootstrap.servers = B_host1:9092, B_host2:9092, B_host3:9092

# enable and configure individual replication flows
A->B.enabled = true
A->B.topics = .*
B->A.enabled = true
B->A.topics = .*
! a bang comment
replication.factor=1
B.security.protocol=SASL_SSL
B.sasl.mechanism: SCRAM-SHA-512
B.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required \\
    username="mm2-b" \\
    password="secret-never-copied";
B.ssl.truststore.location=/etc/kafka/b-truststore.jks
replication.policy.separator = _
`;

describe("parseJavaProperties", () => {
  it("reads separators, comments, continued lines and escapes as java.util.Properties does", () => {
    const props = parseJavaProperties("a = 1\nb:2\nc 3\n# x = 9\n  d=long \\\n    line\ne=tab\\there\\u0041\nkey\\ with\\=sign = v\nempty\n");
    expect(Object.fromEntries(props)).toEqual({ a: "1", b: "2", c: "3", d: "long line", e: "tab\thereA", "key with=sign": "v", empty: "" });
  });
});

describe("buildConfigFromMm2Properties", () => {
  it("writes a config Gapwatch accepts: both clusters, SASL with an env reference, the truststore as a PEM to export", () => {
    const imported = buildConfigFromMm2Properties(parseJavaProperties(mm2Properties), "mm2.properties");
    expect(imported.yaml).not.toContain("secret-never-copied");
    expect(imported.envVars).toEqual([{ name: "GAPWATCH_B_SASL_PASSWORD", why: "the SASL password of mm2-b on B (never copied from the properties)" }]);
    expect(imported.notes).toEqual([
      "B: MM2 trusts /etc/kafka/b-truststore.jks (a JKS truststore); Gapwatch takes the CA as PEM. List its entries with " +
        "keytool -list -keystore /etc/kafka/b-truststore.jks -storetype JKS, then export the CA next to the config: " +
        "keytool -exportcert -rfc -keystore /etc/kafka/b-truststore.jks -storetype JKS -alias <ca alias> -file b-ca.pem",
    ]);
    const config = validateConfigText(imported.yaml, "gapwatch.config.yaml", { NODE_ENV: "test", GAPWATCH_B_SASL_PASSWORD: "pw" });
    expect(config.clusters).toEqual([
      { alias: "A", bootstrap: ["A_host1:9092", "A_host2:9092", "A_host3:9092"] },
      {
        alias: "B",
        bootstrap: ["B_host1:9092", "B_host2:9092", "B_host3:9092"],
        tls: { caFile: "b-ca.pem", rejectUnauthorized: true },
        sasl: { mechanism: "SCRAM-SHA-512", username: "mm2-b", password: "pw" },
      },
    ]);
    expect(config.connect).toEqual([]);
    expect(config.flows).toEqual({
      "A->B": { rpoSeconds: 300, replicationPolicy: { kind: "default", separator: "_" } },
      "B->A": { rpoSeconds: 300, replicationPolicy: { kind: "default", separator: "_" } },
    });
  });

  it("says what to fix when the properties lack clusters or a bootstrap, and notes an unsupported mechanism", () => {
    expect(() => buildConfigFromMm2Properties(parseJavaProperties("A.bootstrap.servers=a:9092\n"), "mm2.properties")).toThrow(
      "mm2.properties: no `clusters` line; MM2's properties list the cluster aliases, e.g. clusters = A, B",
    );
    expect(() => buildConfigFromMm2Properties(parseJavaProperties("clusters=A,B\nA.bootstrap.servers=a:9092\n"), "mm2.properties")).toThrow(
      "mm2.properties: B.bootstrap.servers is missing; every alias in `clusters` needs one",
    );
    const kerberos = buildConfigFromMm2Properties(parseJavaProperties("clusters=A\nA.bootstrap.servers=a:9092\nsecurity.protocol=SASL_PLAINTEXT\n"), "mm2.properties");
    expect(kerberos.notes).toEqual([
      "A: SASL mechanism GSSAPI is not supported by Gapwatch (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM); " +
        "give it a SCRAM user or an OAuth client and fill in clusters[A].sasl",
      "no <source>-><target>.enabled = true line: MM2 replicates nothing with these properties",
    ]);
  });

  it("maps an MSK IAM cluster: region from the broker host names, role from the JAAS options, no secret", () => {
    const msk = `clusters = onprem, msk
onprem.bootstrap.servers = kafka-1.dc1:9092
msk.bootstrap.servers = b-1.west.abc123.c2.kafka.eu-west-1.amazonaws.com:9098,b-2.west.abc123.c2.kafka.eu-west-1.amazonaws.com:9098
msk.security.protocol = SASL_SSL
msk.sasl.mechanism = AWS_MSK_IAM
msk.sasl.jaas.config = software.amazon.msk.auth.iam.IAMLoginModule required awsRoleArn="arn:aws:iam::123456789012:role/mm2" awsRoleSessionName="mm2";
msk.sasl.client.callback.handler.class = software.amazon.msk.auth.iam.IAMClientCallbackHandler
onprem->msk.enabled = true
`;
    const imported = buildConfigFromMm2Properties(parseJavaProperties(msk), "mm2.properties");
    expect(imported.envVars).toEqual([]);
    const config = validateConfigText(imported.yaml, "gapwatch.config.yaml", { NODE_ENV: "test" });
    expect(config.clusters[1]).toEqual({
      alias: "msk",
      bootstrap: ["b-1.west.abc123.c2.kafka.eu-west-1.amazonaws.com:9098", "b-2.west.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"],
      tls: true,
      sasl: { mechanism: "AWS_MSK_IAM", region: "eu-west-1", roleArn: "arn:aws:iam::123456789012:role/mm2", roleSessionName: "mm2" },
    });
    const noRegion = buildConfigFromMm2Properties(parseJavaProperties(msk.replaceAll(".kafka.eu-west-1.amazonaws.com", ".internal")), "mm2.properties");
    expect(noRegion.envVars).toEqual([{ name: "AWS_REGION", why: "the AWS region of msk's MSK cluster (not in its bootstrap host names)" }]);
    expect(validateConfigText(noRegion.yaml, "g.yaml", { NODE_ENV: "test", AWS_REGION: "us-east-1" }).clusters[1]?.sasl).toMatchObject({ region: "us-east-1" });
  });

  it("maps OAUTHBEARER client credentials: endpoint, client id, scope and extensions; the client secret as an env reference", () => {
    const oauth = `clusters = A, cloud
A.bootstrap.servers = a:9092
cloud.bootstrap.servers = pkc-abc12.eu-west-1.aws.confluent.cloud:9092
cloud.security.protocol = SASL_SSL
cloud.sasl.mechanism = OAUTHBEARER
cloud.sasl.oauthbearer.token.endpoint.url = https://idp.example.com/oauth2/token
cloud.sasl.login.callback.handler.class = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler
cloud.sasl.jaas.config = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \\
  clientId="mm2-client" clientSecret="never-copied" scope="kafka" \\
  extension_logicalCluster="lkc-abc12" extension_identityPoolId="pool-xyz";
A->cloud.enabled = true
`;
    const imported = buildConfigFromMm2Properties(parseJavaProperties(oauth), "mm2.properties");
    expect(imported.yaml).not.toContain("never-copied");
    expect(imported.envVars).toEqual([
      { name: "GAPWATCH_CLOUD_OAUTH_CLIENT_SECRET", why: "the OAuth client secret of mm2-client on cloud (never copied from the properties)" },
    ]);
    const config = validateConfigText(imported.yaml, "g.yaml", { NODE_ENV: "test", GAPWATCH_CLOUD_OAUTH_CLIENT_SECRET: "s3" });
    expect(config.clusters[1]?.sasl).toEqual({
      mechanism: "OAUTHBEARER",
      tokenEndpointUrl: "https://idp.example.com/oauth2/token",
      clientId: "mm2-client",
      clientSecret: "s3",
      scope: "kafka",
      extensions: { logicalCluster: "lkc-abc12", identityPoolId: "pool-xyz" },
    });
    // Kafka 4.1's settings win over the deprecated JAAS options (SaslConfigs: "Order of precedence").
    const kip1139 = `${oauth}cloud.sasl.oauthbearer.client.credentials.client.id = newer-client\ncloud.sasl.oauthbearer.scope = kafka.read\n`;
    const newer = validateConfigText(buildConfigFromMm2Properties(parseJavaProperties(kip1139), "mm2.properties").yaml, "g.yaml", {
      NODE_ENV: "test",
      GAPWATCH_CLOUD_OAUTH_CLIENT_SECRET: "s3",
    });
    expect(newer.clusters[1]?.sasl).toMatchObject({ clientId: "newer-client", scope: "kafka.read" });
    const tokenFile = oauth.replace("https://idp.example.com/oauth2/token", "file:///var/run/token.jwt");
    expect(() => buildConfigFromMm2Properties(parseJavaProperties(tokenFile), "mm2.properties")).toThrow(
      "mm2.properties: cloud.sasl.oauthbearer.token.endpoint.url = file:///var/run/token.jwt: Gapwatch needs the http(s) token endpoint (client credentials), not a token file",
    );
    expect(() => buildConfigFromMm2Properties(parseJavaProperties(oauth.replace(/^cloud\.sasl\.oauthbearer\.token.*\n/m, "")), "mm2.properties")).toThrow(
      "mm2.properties: cloud.sasl.oauthbearer.token.endpoint.url is missing; Gapwatch gets OAUTHBEARER tokens from an OIDC token endpoint " +
        "(client credentials) and cannot use Kafka's unsecured tokens or a custom login callback handler",
    );
  });

  it("maps keystores for mTLS: PKCS12 as is, JKS with the keytool conversion, PEM files as cert and key", () => {
    const stores = `clusters = A, B, C
A.bootstrap.servers = a:9093
B.bootstrap.servers = b:9093
C.bootstrap.servers = c:9093
security.protocol = SSL
A.ssl.truststore.location = /etc/kafka/ca.p12
A.ssl.truststore.type = PKCS12
A.ssl.truststore.password = never-copied
A.ssl.keystore.location = /etc/kafka/a-client.p12
A.ssl.keystore.type = PKCS12
A.ssl.keystore.password = never-copied
B.ssl.truststore.location = /etc/kafka/ca.pem
B.ssl.truststore.type = PEM
B.ssl.keystore.location = /etc/kafka/b-client.jks
B.ssl.keystore.password = never-copied
B.ssl.endpoint.identification.algorithm =
C.ssl.keystore.location = /etc/kafka/c-client.pem
C.ssl.keystore.type = PEM
C.ssl.key.password = never-copied
A->B.enabled = true
`;
    const imported = buildConfigFromMm2Properties(parseJavaProperties(stores), "mm2.properties");
    expect(imported.yaml).not.toContain("never-copied");
    expect(imported.envVars.map((v) => v.name)).toEqual(["GAPWATCH_A_KEYSTORE_PASSWORD", "GAPWATCH_B_KEYSTORE_PASSWORD", "GAPWATCH_C_KEY_PASSWORD"]);
    expect(imported.notes).toContain(
      "B: MM2's client keystore /etc/kafka/b-client.jks is JKS; Gapwatch reads PKCS12. Convert it next to the config: " +
        "keytool -importkeystore -srckeystore /etc/kafka/b-client.jks -srcstoretype JKS -destkeystore b-client.p12 -deststoretype PKCS12 " +
        "(give the destination the keystore password, set in GAPWATCH_B_KEYSTORE_PASSWORD)",
    );
    const env = { NODE_ENV: "test", GAPWATCH_A_KEYSTORE_PASSWORD: "a", GAPWATCH_B_KEYSTORE_PASSWORD: "b", GAPWATCH_C_KEY_PASSWORD: "c" };
    const config = validateConfigText(imported.yaml, "g.yaml", env);
    expect(config.clusters.map((c) => c.tls)).toEqual([
      { caFile: "a-ca.pem", keystoreFile: "/etc/kafka/a-client.p12", keystorePassword: "a", rejectUnauthorized: true },
      { caFile: "/etc/kafka/ca.pem", keystoreFile: "b-client.p12", keystorePassword: "b", verifyHostname: false, rejectUnauthorized: true },
      { certFile: "/etc/kafka/c-client.pem", keyFile: "/etc/kafka/c-client.pem", keyPassword: "c", rejectUnauthorized: true },
    ]);
  });
});
