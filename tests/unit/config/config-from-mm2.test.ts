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
      "B: MM2 trusts /etc/kafka/b-truststore.jks (a Java truststore); export its CA as PEM next to the config: keytool -exportcert -rfc -keystore /etc/kafka/b-truststore.jks -alias <ca alias> -file b-ca.pem",
    ]);
    const config = validateConfigText(imported.yaml, "gapwatch.config.yaml", { NODE_ENV: "test", GAPWATCH_B_SASL_PASSWORD: "pw" });
    expect(config.clusters).toEqual([
      { alias: "A", bootstrap: ["A_host1:9092", "A_host2:9092", "A_host3:9092"] },
      {
        alias: "B",
        bootstrap: ["B_host1:9092", "B_host2:9092", "B_host3:9092"],
        tls: { ca: "b-ca.pem", rejectUnauthorized: true },
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
      "A: SASL mechanism GSSAPI is not supported by Gapwatch (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); give it a SCRAM user",
      "no <source>-><target>.enabled = true line: MM2 replicates nothing with these properties",
    ]);
  });
});
