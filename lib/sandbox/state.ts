import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stateFile } from "./paths";
import type { SecuredSandbox } from "./secured-listeners";

/** What a running sandbox tells other tools and tests: `.gapwatch/sandbox/state.json`. */
export interface SandboxState {
  kafkaVersion: string;
  jars: string;
  clusters: Record<string, { bootstrap: string }>;
  connect: { url: string };
  /** MM2 runs as connectors on the Connect worker (absent in files written before modes existed). */
  mm2?: { mode: "connect" };
  dashboard: { url: string } | null;
  startedAt: string;
  /** The secured listeners, certificates and SCRAM user of a sandbox started with `secured: true`. */
  secured?: SecuredSandbox;
}

/** state.json of a sandbox running dedicated-mode MM2 (`sandbox up --mm2 dedicated`): no Kafka Connect. */
export interface DedicatedSandboxState extends Omit<SandboxState, "connect" | "mm2"> {
  connect: null;
  /** The MirrorMaker JVM (pidfile `name`), its mm2.properties and the flow it runs. */
  mm2: { mode: "dedicated"; flow: string; name: string; pid: number; configFile: string };
}

export function writeSandboxState(state: SandboxState | DedicatedSandboxState): void {
  mkdirSync(path.dirname(stateFile), { recursive: true });
  writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Reads state.json of a sandbox running MM2 on Kafka Connect (what scenarios, tests and the demo
 * need); throws a message saying how to start one when there is none or it runs dedicated-mode MM2.
 */
export function readSandboxState(): SandboxState {
  const state = readAnySandboxState();
  if (state.connect === null) {
    throw new Error(`the sandbox runs MM2 in dedicated mode (${state.mm2.configFile}), without Kafka Connect; ` + "this needs `npm run sandbox -- up` (MM2 on Kafka Connect)");
  }
  return state;
}

/** Reads state.json whichever way MM2 runs; throws a message saying how to start the sandbox when there is none. */
export function readAnySandboxState(): SandboxState | DedicatedSandboxState {
  if (!existsSync(stateFile)) {
    throw new Error(`no sandbox is running (${stateFile} is missing); start one with \`npm run sandbox -- up\` or \`npm run demo\``);
  }
  return JSON.parse(readFileSync(stateFile, "utf8")) as SandboxState | DedicatedSandboxState;
}

/** The bootstrap address of a sandbox cluster by MM2 alias, with a clear error for an unknown alias. */
export function bootstrapOf(state: SandboxState, alias: string): string {
  const cluster = state.clusters[alias];
  if (!cluster) throw new Error(`sandbox has no cluster "${alias}"; it has ${Object.keys(state.clusters).join(", ")}`);
  return cluster.bootstrap;
}
