import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { classpathOf } from "@/lib/sandbox/jars";
import { runKafkaTool } from "@/lib/sandbox/kafka-cli";
import { baseJvmOptions, writeToolLogConfig } from "@/lib/sandbox/log-config";
import { sandboxDir } from "@/lib/sandbox/paths";
import { type ManagedProcess, spawnJava } from "@/lib/sandbox/processes";
import type { SandboxState } from "@/lib/sandbox/state";

/**
 * Real clients of Kafka 4's newer group types for tests/integration/kafka/group-types.test.ts, and
 * what Kafka's own CLI says about their groups (ground truth, never the code under test).
 */

/**
 * The kafka-streams jar of the sandbox's Kafka version, copied once beside its jars. Not in pom.xml:
 * its rocksdbjni dependency (70 MB) would join every sandbox JVM's classpath, and the stateless app
 * below needs kafka-streams alone (its other dependencies are already among the sandbox's jars).
 */
export async function ensureStreamsJar(state: SandboxState): Promise<string> {
  const dir = path.join(path.dirname(state.jars), "streams-jar");
  const jar = path.join(dir, `kafka-streams-${state.kafkaVersion}.jar`);
  if (existsSync(jar)) return jar;
  mkdirSync(dir, { recursive: true });
  // Maven's local repository usually has it already (mvn itself takes 10-20 s to start on 2 busy cores).
  const cached = path.join(os.homedir(), ".m2", "repository", "org", "apache", "kafka", "kafka-streams", state.kafkaVersion, path.basename(jar));
  if (existsSync(cached)) {
    copyFileSync(cached, `${jar}.part`);
    renameSync(`${jar}.part`, jar);
    return jar;
  }
  await new Promise<void>((resolve, reject) => {
    const args = ["-q", "-B", "dependency:copy", `-Dartifact=org.apache.kafka:kafka-streams:${state.kafkaVersion}`, `-DoutputDirectory=${dir}`];
    const child = spawn("mvn", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", (err) => reject(new Error(`cannot run mvn: ${err.message}`)));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`mvn dependency:copy kafka-streams failed (${code}):\n${output.slice(-3000)}`))));
  });
  if (!existsSync(jar)) throw new Error(`mvn finished but ${jar} is missing`);
  return jar;
}

function toolJvmOptions(state: SandboxState): string[] {
  return [...baseJvmOptions(256), writeToolLogConfig(sandboxDir, state.kafkaVersion)];
}

/** Starts tests/integration/kafka/java/streams-pass-through.java (a real Kafka Streams app, `group.protocol=streams`) on `topic`. */
export function startStreamsApp(state: SandboxState, streamsJar: string, bootstrap: string, applicationId: string, topic: string): ManagedProcess {
  const dir = path.join(sandboxDir, "group-clients", applicationId);
  mkdirSync(dir, { recursive: true });
  const props = path.join(dir, "streams.properties");
  writeFileSync(
    props,
    [
      `application.id=${applicationId}`,
      `bootstrap.servers=${bootstrap}`,
      "group.protocol=streams",
      "auto.offset.reset=earliest",
      "commit.interval.ms=500",
      `state.dir=${path.join(dir, "state")}`,
      "",
    ].join("\n"),
  );
  return spawnJava({
    name: `streams-${applicationId}`,
    classpath: `${classpathOf(state.jars)}${path.delimiter}${streamsJar}`,
    mainClass: path.join(import.meta.dirname, "java", "streams-pass-through.java"),
    args: [props, topic],
    jvmOptions: toolJvmOptions(state),
    logFile: path.join(dir, "streams.log"),
  });
}

/** Starts Kafka's console share consumer (a KIP-932 share group member) on `topic`; it runs until stopped. */
export function startShareConsumer(state: SandboxState, bootstrap: string, group: string, topic: string): ManagedProcess {
  return spawnJava({
    name: `share-${group}`,
    classpath: classpathOf(state.jars),
    mainClass: "org.apache.kafka.tools.consumer.ConsoleShareConsumer",
    args: ["--bootstrap-server", bootstrap, "--topic", topic, "--group", group, "--formatter-property", "print.offset=true", "--formatter-property", "print.partition=true"],
    jvmOptions: toolJvmOptions(state),
    logFile: path.join(sandboxDir, "group-clients", `${group}.log`),
  });
}

/** Every group of a cluster with its type, from Kafka's GroupsCommand (`kafka-groups.sh --list`). */
export async function listGroupsWithCli(state: SandboxState, bootstrap: string): Promise<{ group: string; type: string }[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.GroupsCommand", ["--bootstrap-server", bootstrap, "--list"]);
  return out
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 2 && cols[0] !== "")
    .map((cols) => ({ group: cols[0]!, type: cols[1]! }));
}

/** A group's state and member count from a group command's `--describe --state` (last two columns). */
export async function describeGroupStateWithCli(state: SandboxState, bootstrap: string, command: "streams" | "share", group: string): Promise<{ state: string; members: number }> {
  const mainClass = command === "streams" ? "org.apache.kafka.tools.streams.StreamsGroupCommand" : "org.apache.kafka.tools.consumer.group.ShareGroupCommand";
  const out = await runKafkaTool(state, mainClass, ["--bootstrap-server", bootstrap, "--describe", "--group", group, "--state"]);
  const cols = out.split("\n").find((l) => l.startsWith(`${group} `))?.trim().split(/\s+/);
  if (!cols) throw new Error(`no state line for ${group}:\n${out}`);
  return { state: cols.at(-2)!, members: Number(cols.at(-1)) };
}

/** A streams group's committed offsets, from StreamsGroupCommand `--describe --offsets --verbose`. */
export async function describeStreamsOffsetsWithCli(state: SandboxState, bootstrap: string, group: string): Promise<{ topic: string; partition: number; offset: bigint; leaderEpoch: number }[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.streams.StreamsGroupCommand", ["--bootstrap-server", bootstrap, "--describe", "--group", group, "--offsets", "--verbose"]);
  // GROUP TOPIC PARTITION CURRENT-OFFSET LEADER-EPOCH LOG-END-OFFSET OFFSET-LAG
  return out
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c[0] === group && /^\d+$/.test(c[3] ?? ""))
    .map((c) => ({ topic: c[1]!, partition: Number(c[2]), offset: BigInt(c[3]!), leaderEpoch: Number(c[4]) }))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/** A share group's start offsets and lags, from ShareGroupCommand `--describe --offsets --verbose`. */
export async function describeShareOffsetsWithCli(
  state: SandboxState,
  bootstrap: string,
  group: string,
): Promise<{ topic: string; partition: number; startOffset: bigint; leaderEpoch: number; lag: bigint | null }[]> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.group.ShareGroupCommand", ["--bootstrap-server", bootstrap, "--describe", "--group", group, "--offsets", "--verbose"]);
  // GROUP TOPIC PARTITION LEADER-EPOCH START-OFFSET LAG
  return out
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c[0] === group && /^\d+$/.test(c[4] ?? ""))
    .map((c) => ({ topic: c[1]!, partition: Number(c[2]), leaderEpoch: Number(c[3]), startOffset: BigInt(c[4]!), lag: /^\d+$/.test(c[5] ?? "") ? BigInt(c[5]!) : null }))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/** Sets a group config (e.g. share.auto.offset.reset) with Kafka's ConfigCommand. */
export async function setGroupConfig(state: SandboxState, bootstrap: string, group: string, config: string): Promise<void> {
  await runKafkaTool(state, "kafka.admin.ConfigCommand", ["--bootstrap-server", bootstrap, "--entity-type", "groups", "--entity-name", group, "--alter", "--add-config", config]);
}
