import { spawn } from "node:child_process";
import { classpathOf } from "./jars";
import { mkdirSync } from "node:fs";
import { baseJvmOptions, writeToolLogConfig } from "./log-config";
import { sandboxDir } from "./paths";
import type { SandboxState } from "./state";

/**
 * Runs one of Kafka's own command-line tools from the resolved jars (e.g.
 * `org.apache.kafka.tools.TopicCommand`) and returns its stdout. Tests use it to read what Kafka
 * itself reports, independently of the code under test.
 */
export async function runKafkaTool(state: SandboxState, tool: string, toolArgs: string[], timeoutMs = 60_000): Promise<string> {
  mkdirSync(sandboxDir, { recursive: true });
  const logOption = writeToolLogConfig(sandboxDir, state.kafkaVersion);
  const args = spellArgsFor(state.kafkaVersion, toolArgs);
  const legacy = legacyToolNames[tool];
  const known = legacy === undefined ? undefined : foundMainClass.get(`${state.jars}|${tool}`);
  if (legacy === undefined || known !== undefined) return runJavaTool(state, logOption, known ?? tool, args, timeoutMs);
  // Which name the jars hold depends on the Kafka version (the tools moved one by one across 3.5–4.0); asking Java
  // is exact for any version, where a table of move versions would be a guess for the ones not run here.
  const key = `${state.jars}|${tool}`;
  try {
    const out = await runJavaTool(state, logOption, tool, args, timeoutMs);
    foundMainClass.set(key, tool);
    return out;
  } catch (err) {
    if (!(err instanceof MainClassMissingError)) throw err;
  }
  const out = await runJavaTool(state, logOption, legacy, args, timeoutMs);
  foundMainClass.set(key, legacy);
  return out;
}

/**
 * Kafka 4.x tool classes and the name they had before they moved to the tools module (Kafka 3.6: all of these in
 * core; 3.9: DumpLogSegments still in core). Kafka's upgrade notes list each move (KAFKA-14525 and its sub-tasks).
 */
const legacyToolNames: Record<string, string> = {
  "org.apache.kafka.tools.DumpLogSegments": "kafka.tools.DumpLogSegments",
  "org.apache.kafka.tools.TopicCommand": "kafka.admin.TopicCommand",
  "org.apache.kafka.tools.LeaderElectionCommand": "kafka.admin.LeaderElectionCommand",
  "org.apache.kafka.tools.GetOffsetShell": "kafka.tools.GetOffsetShell",
  "org.apache.kafka.tools.consumer.ConsoleConsumer": "kafka.tools.ConsoleConsumer",
  "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand": "kafka.admin.ConsumerGroupCommand",
};

/** The class name that worked, per jar directory and 4.x tool name. */
const foundMainClass = new Map<string, string>();

/** Java could not load the main class: the jars name the tool differently (see legacyToolNames). */
class MainClassMissingError extends Error {}

/** 3.x ConsoleConsumer took formatter properties as `--property` (4.x deprecates it for `--formatter-property`). */
function spellArgsFor(version: string, args: string[]): string[] {
  if (Number(version.split(".")[0]) >= 4) return args;
  return args.map((a) => (a === "--formatter-property" ? "--property" : a));
}

function runJavaTool(state: SandboxState, logOption: string, mainClass: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("java", [...baseJvmOptions(256), logOption, "-cp", classpathOf(state.jars), mainClass, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (err) => reject(new Error(`cannot run java for ${mainClass}: ${err.message}`)));
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else if (stderr.includes(`Could not find or load main class ${mainClass}`)) {
        reject(new MainClassMissingError(`${mainClass} is not in ${state.jars}`));
      } else reject(new Error(`${mainClass} ${args.join(" ")} exited with ${code}:\n${stderr.slice(-3000)}`));
    });
  });
}

/** Topic IDs as Kafka's TopicCommand prints them (base64url), read with `--describe`. */
export async function describeTopicIds(state: SandboxState, bootstrap: string, topics: string[]): Promise<Map<string, string>> {
  const out = await runKafkaTool(state, "org.apache.kafka.tools.TopicCommand", ["--bootstrap-server", bootstrap, "--describe", "--topic", topics.join("|")]);
  const ids = new Map<string, string>();
  for (const m of out.matchAll(/^Topic:\s*(\S+)\s+TopicId:\s*(\S+)/gm)) ids.set(m[1]!, m[2]!);
  return ids;
}

/** Kafka prints topic IDs as base64url of 16 bytes; Metadata clients often show hyphenated hex. */
export function topicIdToHex(base64: string): string {
  const hex = Buffer.from(base64, "base64url").toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** One record as read by Kafka's ConsoleConsumer: its offset and value text. */
export interface ConsoleRecord {
  offset: bigint;
  value: string;
}

/**
 * Reads up to `max` records of one partition from `offset`, group-less, with Kafka's own
 * ConsoleConsumer (ground truth for tests and scenarios). Ask for no more records than the
 * partition holds from `offset`: the tool otherwise waits for its 8 s timeout. The timeout also runs while
 * the tool fetches its first record: on a loaded machine (load 16, CI of 2026-12-02) that took longer and the
 * read came back empty, so an empty read is tried twice more.
 */
export async function readPartition(
  state: SandboxState,
  bootstrap: string,
  topic: string,
  partition: number,
  offset: bigint,
  max: number,
): Promise<ConsoleRecord[]> {
  let records: ConsoleRecord[] = [];
  for (let attempt = 0; max > 0 && records.length === 0 && attempt < 3; attempt++) {
    const out = await runKafkaTool(state, "org.apache.kafka.tools.consumer.ConsoleConsumer", [
      "--bootstrap-server", bootstrap, "--topic", topic, "--partition", String(partition), "--offset", offset.toString(),
      "--max-messages", String(max), "--timeout-ms", "8000", "--formatter-property", "print.offset=true",
    ]);
    records = [...out.matchAll(/^Offset:(\d+)\t(.*)$/gm)].map((m) => ({ offset: BigInt(m[1]!), value: m[2]! }));
  }
  return records;
}
