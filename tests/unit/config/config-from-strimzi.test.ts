import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildConfigFromStrimzi } from "@/lib/config/config-from-strimzi";
import { validateConfigText } from "@/lib/config/load";
import { ConfigError } from "@/lib/errors";

// Strimzi's own examples (strimzi/strimzi-kafka-operator packaging/examples/mirror-maker/kafka-mirror-maker-2-tls.yaml):
// the current layout at 8541da1, and the older spec.clusters layout as it was before 59ca0c3.
const fixtures = path.join(__dirname, "fixtures");
const currentExample = readFileSync(path.join(fixtures, "strimzi-kafka-mirror-maker-2-tls.yaml"), "utf8");
const olderExample = readFileSync(path.join(fixtures, "strimzi-kafka-mirror-maker-2-tls-v1beta2.yaml"), "utf8");

function validate(yaml: string, env: Record<string, string> = {}) {
  return validateConfigText(yaml, "gapwatch.config.yaml", { NODE_ENV: "test", ...env });
}

describe("buildConfigFromStrimzi", () => {
  it("maps Strimzi's current TLS example: target and source with their CA Secrets, the flow, REST and the internal topics", () => {
    const imported = buildConfigFromStrimzi(currentExample, "mm2.yaml");
    const config = validate(imported.yaml);
    expect(config.clusters).toEqual([
      {
        alias: "cluster-b",
        bootstrap: ["cluster-b-kafka-bootstrap:9093"],
        tls: { caFile: "/etc/gapwatch-secrets/cluster-b-cluster-ca-cert/ca.crt", rejectUnauthorized: true },
      },
      {
        alias: "cluster-a",
        bootstrap: ["cluster-a-kafka-bootstrap:9093"],
        tls: { caFile: "/etc/gapwatch-secrets/cluster-a-cluster-ca-cert/ca.crt", rejectUnauthorized: true },
      },
    ]);
    expect(config.connect).toEqual([
      {
        name: "my-mirror-maker-2",
        url: "http://my-mirror-maker-2-mirrormaker2-api:8083",
        timeoutMs: 5000,
        internalTopics: {
          cluster: "cluster-b",
          configs: "my-mirror-maker-2-config",
          offsets: "my-mirror-maker-2-offset",
          status: "my-mirror-maker-2-status",
        },
      },
    ]);
    expect(Object.keys(config.flows)).toEqual(["cluster-a->cluster-b"]);
    expect(imported.envVars).toEqual([]);
    expect(imported.notes.slice(0, 2)).toEqual([
      "mount Secret cluster-b-cluster-ca-cert (ca.crt) at /etc/gapwatch-secrets/cluster-b-cluster-ca-cert (Helm: extraSecretMounts)",
      "mount Secret cluster-a-cluster-ca-cert (ca.crt) at /etc/gapwatch-secrets/cluster-a-cluster-ca-cert (Helm: extraSecretMounts)",
    ]);
  });

  it("finds the KafkaMirrorMaker2 in a kubectl List", () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n${currentExample.replace(/^/gm, "    ").replace(/^    /, "  - ")}`;
    expect(buildConfigFromStrimzi(list, "mm2.yaml").yaml).toBe(buildConfigFromStrimzi(currentExample, "mm2.yaml").yaml);
  });

  it("maps the older spec.clusters + connectCluster layout with Strimzi's default worker topics", () => {
    const config = validate(buildConfigFromStrimzi(olderExample, "mm2.yaml").yaml);
    expect(config.clusters.map((c) => c.alias)).toEqual(["cluster-a", "cluster-b"]);
    expect(config.connect[0]?.internalTopics).toEqual({
      cluster: "cluster-b",
      configs: "mirrormaker2-cluster-configs",
      offsets: "mirrormaker2-cluster-offsets",
      status: "mirrormaker2-cluster-status",
    });
    expect(Object.keys(config.flows)).toEqual(["cluster-a->cluster-b"]);
  });

  it("turns tls, scram-sha-512 and oauth authentication into mounted files and ${ENV} references naming the Secrets", () => {
    const withAuth = currentExample
      .replace(
        "    config:\n      # -1",
        [
          "    authentication:",
          "      type: scram-sha-512",
          "      username: mm2-b",
          "      passwordSecret: { secretName: mm2-b, password: password }",
          "    config:\n      # -1",
        ].join("\n"),
      )
      .replace(
        '            pattern: "*.crt"\n    sourceConnector:',
        [
          '            pattern: "*.crt"',
          "      authentication:",
          "        type: tls",
          "        certificateAndKey: { secretName: mm2-a, certificate: user.crt, key: user.key }",
          "    sourceConnector:",
        ].join("\n"),
      )
      .replace(
        "        replication.factor: -1\n",
        "        replication.factor: -1\n        replication.policy.class: org.apache.kafka.connect.mirror.IdentityReplicationPolicy\n",
      );
    const imported = buildConfigFromStrimzi(withAuth, "mm2.yaml");
    expect(imported.envVars).toEqual([
      { name: "GAPWATCH_CLUSTER_B_SASL_PASSWORD", why: "key password of Secret mm2-b (mm2-b's password on cluster-b)" },
    ]);
    const config = validate(imported.yaml, { GAPWATCH_CLUSTER_B_SASL_PASSWORD: "pw" });
    expect(config.clusters[0]?.sasl).toEqual({ mechanism: "SCRAM-SHA-512", username: "mm2-b", password: "pw" });
    expect(config.clusters[1]?.tls).toEqual({
      caFile: "/etc/gapwatch-secrets/cluster-a-cluster-ca-cert/ca.crt",
      certFile: "/etc/gapwatch-secrets/mm2-a/user.crt",
      keyFile: "/etc/gapwatch-secrets/mm2-a/user.key",
      rejectUnauthorized: true,
    });
    expect(config.flows["cluster-a->cluster-b"]).toEqual({ rpoSeconds: 300, replicationPolicy: { kind: "identity" } });
    expect(imported.notes).toContain(
      "mount Secret mm2-a (user.crt, user.key) at /etc/gapwatch-secrets/mm2-a (Helm: extraSecretMounts)",
    );

    const oauth = currentExample.replace(
      "    config:\n      # -1",
      [
        "    authentication:",
        "      type: oauth",
        "      tokenEndpointUri: https://sso.example.com/realms/kafka/protocol/openid-connect/token",
        "      clientId: mm2",
        "      clientSecret: { secretName: mm2-oauth, key: secret }",
        "      scope: kafka",
        "    config:\n      # -1",
      ].join("\n"),
    );
    const fromOauth = buildConfigFromStrimzi(oauth, "mm2.yaml");
    expect(fromOauth.yaml).toContain("clientSecret: ${GAPWATCH_CLUSTER_B_OAUTH_CLIENT_SECRET}");
    expect(validate(fromOauth.yaml, { GAPWATCH_CLUSTER_B_OAUTH_CLIENT_SECRET: "s" }).clusters[0]?.sasl).toEqual({
      mechanism: "OAUTHBEARER",
      tokenEndpointUrl: "https://sso.example.com/realms/kafka/protocol/openid-connect/token",
      clientId: "mm2",
      clientSecret: "s",
      scope: "kafka",
    });
  });

  it("maps custom authentication with MSK IAM's client settings", () => {
    const custom = currentExample
      .replace("cluster-b-kafka-bootstrap:9093", "b-1.west.abc123.c2.kafka.eu-west-1.amazonaws.com:9098")
      .replace(
        "    config:\n      # -1",
        [
          "    authentication:",
          "      type: custom",
          "      sasl: true",
          "      config:",
          "        sasl.mechanism: AWS_MSK_IAM",
          "        sasl.jaas.config: software.amazon.msk.auth.iam.IAMLoginModule required;",
          "        sasl.client.callback.handler.class: software.amazon.msk.auth.iam.IAMClientCallbackHandler",
          "    config:\n      # -1",
        ].join("\n"),
      );
    const config = validate(buildConfigFromStrimzi(custom, "mm2.yaml").yaml);
    expect(config.clusters[0]?.sasl).toEqual({ mechanism: "AWS_MSK_IAM", region: "eu-west-1" });
  });

  it("refuses inputs it cannot map, naming the field", () => {
    const errorOf = (text: string) => {
      try {
        buildConfigFromStrimzi(text, "mm2.yaml");
      } catch (err) {
        if (err instanceof ConfigError) return err.message;
      }
      return "no ConfigError";
    };
    expect(errorOf("kind: KafkaConnect\nmetadata: { name: x }\n")).toBe(
      "mm2.yaml: no `kind: KafkaMirrorMaker2` resource (found: KafkaConnect); export it with kubectl get kafkamirrormaker2 <name> -o yaml",
    );
    expect(errorOf(currentExample.replace("    configStorageTopic: my-mirror-maker-2-config\n", ""))).toBe(
      "mm2.yaml: spec.target.configStorageTopic is missing; the KafkaMirrorMaker2 must set it",
    );
    expect(
      errorOf(
        currentExample.replace(
          "    config:\n      # -1",
          "    authentication:\n      type: gssapi\n    config:\n      # -1",
        ),
      ),
    ).toBe(
      'mm2.yaml: spec.target.authentication.type "gssapi" is not one Gapwatch maps (tls, scram-sha-512, scram-sha-256, plain, oauth, custom)',
    );
    expect(errorOf(olderExample.replace('connectCluster: "cluster-b"', 'connectCluster: "cluster-c"'))).toBe(
      "mm2.yaml: spec.connectCluster cluster-c is not an alias of spec.clusters (cluster-a, cluster-b)",
    );
  });
});
