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
export function runKafkaTool(state: SandboxState, tool: string, toolArgs: string[], timeoutMs = 60_000): Promise<string> {
  mkdirSync(sandboxDir, { recursive: true });
  const logOption = writeToolLogConfig(sandboxDir, state.kafkaVersion);
  const { mainClass, args } = nameToolFor(state.kafkaVersion, tool, toolArgs);
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
      else reject(new Error(`${mainClass} ${args.join(" ")} exited with ${code}:\n${stderr.slice(-3000)}`));
    });
  });
}

/**
 * The Kafka 3.x spelling of a tool call written for 4.x, so a test runs unchanged with
 * GAPWATCH_KAFKA_VERSION=3.9.1: DumpLogSegments still lived in core (`kafka.tools`), and
 * ConsoleConsumer took formatter properties as `--property` (4.x deprecates it for `--formatter-property`).
 */
function nameToolFor(version: string, mainClass: string, args: string[]): { mainClass: string; args: string[] } {
  if (Number(version.split(".")[0]) >= 4) return { mainClass, args };
  return {
    mainClass: mainClass === "org.apache.kafka.tools.DumpLogSegments" ? "kafka.tools.DumpLogSegments" : mainClass,
    args: args.map((a) => (a === "--formatter-property" ? "--property" : a)),
  };
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
