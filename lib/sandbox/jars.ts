import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/lib/logger";
import { usesLog4j2 } from "./kafka-version";
import { jarsDirFor, repoRoot } from "./paths";

const log = getLogger("sandbox.jars");

/**
 * Resolves Apache Kafka's jars for `version` with the committed pom.xml into the cache, once per
 * version (a `.complete` marker says the copy finished). Returns the jar directory.
 */
export async function ensureKafkaJars(version: string): Promise<string> {
  const dir = jarsDirFor(version);
  const marker = path.join(dir, ".complete");
  if (existsSync(marker)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log.info({ version, dir }, "resolving Kafka jars from Maven Central (first run for this version)");
  const args = [
    "-q", "-B", "-f", path.join(repoRoot, "pom.xml"),
    `-Dkafka.version=${version}`,
    ...(usesLog4j2(version) ? [] : ["-DlegacyLogging=true"]),
    "dependency:copy-dependencies", `-DoutputDirectory=${dir}`,
  ];
  const output = await runMaven(args);
  const jars = readdirSync(dir).filter((f) => f.endsWith(".jar"));
  if (!jars.some((f) => f.startsWith("connect-mirror-"))) {
    throw new Error(`Maven finished but ${dir} holds no connect-mirror jar; Maven said:\n${output}`);
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  log.info({ version, jars: jars.length }, "Kafka jars ready");
  return dir;
}

/** The Java classpath for every jar in `dir`. */
export function classpathOf(dir: string): string {
  return path.join(dir, "*");
}

function runMaven(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("mvn", args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", (err) => reject(new Error(`cannot run mvn (is Maven installed and on PATH?): ${err.message}`)));
    child.on("exit", (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`mvn dependency:copy-dependencies failed with exit code ${code}:\n${output.slice(-4000)}`));
    });
  });
}
