import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildConfigFromMm2Properties } from "@/lib/config/config-from-mm2";
import { parseJavaProperties } from "@/lib/config/java-properties";
import { parseConfigText } from "@/lib/config/load";
import { createClusterReader } from "@/lib/kafka";
import { readSandboxState } from "@/lib/sandbox/state";

/**
 * `npm run init -- --from mm2.properties` for an MM2 that trusts and authenticates with Java key stores (JKS, Kafka's
 * default type): the config it writes, finished with exactly the keytool commands it prints, reaches the sandbox's
 * secured listeners (east over SASL_SSL/SCRAM-SHA-512, west over mutual TLS). The JKS stores are made here from the
 * sandbox's own CA and client certificate, as an operator's MM2 would hold them.
 */
const state = readSandboxState();
if (state.secured === undefined)
  throw new Error("the sandbox was started without `secured: true` (tests/integration/global-setup.ts starts it so)");
const secured = state.secured;
const certs = secured.certificates;
const dir = mkdtempSync(path.join(os.tmpdir(), "gapwatch-it-init-"));
const storePassword = certs.storePassword;
const caAlias = "sandbox-ca";

function keytool(args: string[]): void {
  execFileSync("keytool", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs a keytool command `init` printed, with the store passwords keytool would otherwise prompt for. */
function runPrintedCommand(command: string): void {
  const args = command.replace("<ca alias>", caAlias).split(" ").slice(1);
  const passwords = args.includes("-importkeystore")
    ? ["-srcstorepass", storePassword, "-deststorepass", storePassword, "-noprompt"]
    : ["-storepass", storePassword];
  keytool([...args, ...passwords]);
}

describe("npm run init from an mm2.properties with JKS stores", () => {
  it("writes a config that, after the printed keytool commands, connects over SASL_SSL and mutual TLS", async () => {
    const truststore = path.join(dir, "mm2-truststore.jks");
    const keystore = path.join(dir, "mm2-keystore.jks");
    keytool([
      "-importcert",
      "-noprompt",
      "-alias",
      caAlias,
      "-file",
      certs.caFile,
      "-keystore",
      truststore,
      "-storetype",
      "JKS",
      "-storepass",
      storePassword,
    ]);
    keytool([
      "-importkeystore",
      "-noprompt",
      "-srckeystore",
      certs.clientKeystoreFile,
      "-srcstoretype",
      "PKCS12",
      "-srcstorepass",
      storePassword,
      "-destkeystore",
      keystore,
      "-deststoretype",
      "JKS",
      "-deststorepass",
      storePassword,
    ]);
    const properties = [
      "clusters = east, west",
      `east.bootstrap.servers = ${secured.clusters.east!.scramSsl}`,
      "east.security.protocol = SASL_SSL",
      `east.sasl.mechanism = ${secured.scram.mechanism}`,
      `east.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="${secured.scram.username}" password="${secured.scram.password}";`,
      `west.bootstrap.servers = ${secured.clusters.west!.mtls}`,
      "west.security.protocol = SSL",
      `west.ssl.keystore.location = ${keystore}`,
      `west.ssl.keystore.password = ${storePassword}`,
      `ssl.truststore.location = ${truststore}`,
      `ssl.truststore.password = ${storePassword}`,
      "east->west.enabled = true",
    ].join("\n");
    const imported = buildConfigFromMm2Properties(parseJavaProperties(properties), "mm2.properties");
    expect(imported.yaml).not.toContain(secured.scram.password);
    expect(imported.envVars.map((v) => v.name)).toEqual([
      "GAPWATCH_EAST_SASL_PASSWORD",
      "GAPWATCH_WEST_KEYSTORE_PASSWORD",
    ]);

    const commands = imported.notes.flatMap(
      (note) => note.match(/keytool -(?:exportcert|importkeystore) [^()]*?(?=$| \(|,)/g) ?? [],
    );
    expect(commands).toHaveLength(3);
    for (const command of commands) runPrintedCommand(command.trim());

    const file = path.join(dir, "gapwatch.config.yaml");
    writeFileSync(file, imported.yaml);
    const env = {
      NODE_ENV: "test",
      GAPWATCH_EAST_SASL_PASSWORD: secured.scram.password,
      GAPWATCH_WEST_KEYSTORE_PASSWORD: storePassword,
    };
    const config = parseConfigText(imported.yaml, file, env);
    for (const cluster of config.clusters) {
      const reader = createClusterReader({
        alias: cluster.alias,
        bootstrap: cluster.bootstrap,
        tls: cluster.tls,
        sasl: cluster.sasl,
        clientId: "gapwatch-it-init",
      });
      try {
        const metadata = await reader.readMetadata();
        expect(metadata.clusterId, `${cluster.alias} answered Metadata`).toEqual(expect.any(String));
      } finally {
        await reader.close();
      }
    }
  }, 120_000);
});
