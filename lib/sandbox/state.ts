import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stateFile } from "./paths";

/** What a running sandbox tells other tools and tests: `.gapwatch/sandbox/state.json`. */
export interface SandboxState {
  kafkaVersion: string;
  jars: string;
  clusters: Record<string, { bootstrap: string }>;
  connect: { url: string };
  dashboard: { url: string } | null;
  startedAt: string;
}

export function writeSandboxState(state: SandboxState): void {
  mkdirSync(path.dirname(stateFile), { recursive: true });
  writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/** Reads state.json; throws a message saying how to start the sandbox when there is none. */
export function readSandboxState(): SandboxState {
  if (!existsSync(stateFile)) {
    throw new Error(`no sandbox is running (${stateFile} is missing); start one with \`npm run sandbox -- up\` or \`npm run demo\``);
  }
  return JSON.parse(readFileSync(stateFile, "utf8")) as SandboxState;
}

/** The bootstrap address of a sandbox cluster by MM2 alias, with a clear error for an unknown alias. */
export function bootstrapOf(state: SandboxState, alias: string): string {
  const cluster = state.clusters[alias];
  if (!cluster) throw new Error(`sandbox has no cluster "${alias}"; it has ${Object.keys(state.clusters).join(", ")}`);
  return cluster.bootstrap;
}
